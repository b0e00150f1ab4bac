import { useEffect, useRef, useState } from 'react'
import type React from 'react'
import { findSlash, runCommand, slashCommands, type PaletteCommand } from '../palette/commands'
import { enqueue, isBusy, send, stop, toast, useApp } from '../state/store'
import { keepDraft, onDraft, takeDraft } from './draft'
import { promptBeingRun, resourceMention, useMcpCatalog } from './mcpOffers'
import { PromptArgsHint, PromptLabel, ResourceLabel } from './McpSuggestionLabels'
import { QueuedMessages } from './QueuedMessages'
import { parseSlash } from './slash'
import { Suggestions, type Suggestion } from './Suggestions'
import { useHistory, type MessageHistory } from './useHistory'
import { mentionPick, useMentions, type MentionOffer } from './useMentions'
import { slashPick, useSlashCommands, type SlashOffer } from './useSlashCommands'
import './chat.css'

function slashLabel(command: PaletteCommand): React.JSX.Element {
  return (
    <>
      <span className="slash-name">/{command.slash}</span>
      {command.args && <span className="slash-args"> {command.args}</span>}
      <span className="slash-hint"> — {command.hint ?? command.title}</span>
    </>
  )
}

/**
 * The message box: Enter sends, Shift+Enter breaks the line, ↑/↓ walk the history
 * (at the first or last line; kept per project across restarts: `useHistory`), `@` completes project
 * files and the MCP servers' resources (`useMentions`), `/` completes the app's commands (run here,
 * never sent to the model) and the servers' prompts (sent: the core puts the prompt's text in;
 * `useSlashCommands`), Esc or Stop interrupts the running turn. While the agent works, Enter queues
 * the message for its next step (QueuedMessages shows, edits and takes back what waits). A refused
 * send keeps the text.
 */
export function ChatInput(): React.JSX.Element {
  const busy = useApp(isBusy)
  const repo = useApp((s) => s.project?.repo)
  const sessionId = useApp((s) => s.sessionId)
  const approvalWaiting = useApp((s) => s.view.pendingApprovals.length > 0)
  const mcp = useMcpCatalog(repo)
  const history = useHistory(repo)
  const box = useRef<HTMLTextAreaElement>(null)
  const { text, setText, caret, setCaret, setTextAndCaret, untilGreen, setUntilGreen } = useChatText(
    sessionId,
    box,
  )

  const { slash, mentions, showSlash, showMentions, count, listId, active, setActive } = useSuggestions(
    { text, caret, repo },
    mcp,
  )
  const runningPrompt = showSlash ? undefined : promptBeingRun(mcp.prompts, text)
  const { runSlash, submit } = useSend({ text, setText, busy, untilGreen, history })

  const pickSlash = (index: number, how: 'complete' | 'run'): void => {
    const outcome = slashPick(slash, index, text, how)
    if (outcome.kind === 'command') void runSlash(outcome.command.slash ?? '', outcome.arg, outcome.typed)
    else if (outcome.kind === 'send') void submit(outcome.text)
    else setTextAndCaret(outcome.text)
  }

  const pickMention = (index: number): void => {
    const edit = mentionPick(mentions, index, text)
    if (edit) setTextAndCaret(edit.text, edit.caret, edit.end)
  }

  const onKeyDown = (e: React.KeyboardEvent<HTMLTextAreaElement>): void => {
    const list = {
      count,
      move: (step: number) => setActive((i) => (i + step + count) % count),
      pick: (how: 'complete' | 'run') => (showSlash ? pickSlash(active, how) : pickMention(active)),
      close: () => setCaret(-1),
    }
    if ((showSlash || showMentions) && listKey(e, list)) return
    boxKey(e, { busy, approvalWaiting, text, history, submit: () => void submit(), recall: setText })
  }

  return (
    <>
      <QueuedMessages />
      {runningPrompt && <PromptArgsHint prompt={runningPrompt} />}
      {untilGreen && <UntilGreenHint />}
      <div className="chat-input">
        {showSlash && <SlashSuggestions slash={slash} active={active} onPick={(i) => pickSlash(i, 'run')} />}
        {showMentions && <MentionSuggestions mentions={mentions} active={active} onPick={pickMention} />}
        <MessageBox
          box={box}
          text={text}
          list={{ id: listId, count, active }}
          placeholder={placeholderFor(repo, busy)}
          disabled={!repo}
          onText={(value, at) => {
            setText(value)
            setCaret(at)
          }}
          onCaret={setCaret}
          onKeyDown={onKeyDown}
        />
        <ChatActions
          untilGreen={untilGreen}
          onUntilGreen={() => setUntilGreen((on) => !on)}
          busy={busy}
          canSend={Boolean(repo && text.trim())}
          hasText={Boolean(text.trim())}
          onSubmit={() => void submit()}
        />
      </div>
    </>
  )
}

/** The box's text, caret and Until green; a half-typed message kept with its chat, a draft put in from outside. */
function useChatText(sessionId: string | null, box: React.RefObject<HTMLTextAreaElement | null>) {
  const [text, setText] = useState('')
  const [untilGreen, setUntilGreen] = useState(false)
  const [caret, setCaret] = useState(0)
  // A half-typed message belongs to its chat: it waits there while another chat is open, and a new
  // chat starts empty. The first send of a new chat gives it its id; that change keeps the box as it is.
  const [typedFor, setTypedFor] = useState(sessionId)
  if (typedFor !== sessionId) {
    setTypedFor(sessionId)
    if (typedFor !== null) {
      keepDraft(typedFor, text)
      setText(sessionId === null ? '' : takeDraft(sessionId))
      setUntilGreen(false)
    }
  }

  useEffect(
    () =>
      onDraft((draft) => {
        setText(draft)
        requestAnimationFrame(() => {
          box.current?.focus()
          box.current?.setSelectionRange(draft.length, draft.length)
        })
      }),
    [box],
  )
  /** `end`: select up to there (a template's placeholder, to type over). */
  const setTextAndCaret = (next: string, at = next.length, end = at): void => {
    setText(next)
    requestAnimationFrame(() => {
      box.current?.setSelectionRange(at, end)
      setCaret(at)
    })
  }
  return { text, setText, caret, setCaret, setTextAndCaret, untilGreen, setUntilGreen }
}

/** What `/` or `@` offers at the caret, and the one highlighted (back to the first whenever the query changes). */
function useSuggestions(
  input: { text: string; caret: number; repo: string | undefined },
  mcp: ReturnType<typeof useMcpCatalog>,
) {
  const { text, caret, repo } = input
  const [pickState, setPickState] = useState({ query: '', index: 0 })
  const slash = useSlashCommands(text, caret, slashCommands(), mcp.prompts)
  const mentions = useMentions(text, caret, repo, mcp.resources)
  const showSlash = slash.count > 0
  const showMentions = !showSlash && mentions.count > 0
  const query = showSlash ? `/${slash.query}` : (mentions.mention?.query ?? '')
  const count = showSlash ? slash.count : showMentions ? mentions.count : 0
  const listId = showSlash ? 'slash-list' : 'mention-list'
  const active = pickState.query === query ? Math.min(pickState.index, Math.max(count - 1, 0)) : 0
  const setActive = (update: (i: number) => number): void => setPickState({ query, index: update(active) })
  return { slash, mentions, showSlash, showMentions, count, listId, active, setActive }
}

interface SendOptions {
  text: string
  setText(text: string): void
  busy: boolean
  untilGreen: boolean
  history: MessageHistory
}

/** Sending what was typed: a `/command` runs in the app, a message goes to the agent (queued while it works). */
function useSend({ text, setText, busy, untilGreen, history }: SendOptions) {
  /** Runs `/name arg` in the app (`typed` goes to the history); an unknown name is said, never sent. */
  const runSlash = async (name: string, arg: string, typed: string): Promise<void> => {
    const command = findSlash(name)
    if (!command) {
      toast(
        'info',
        `Unknown command /${name}. Type / to see the commands; start with a space to send it as text.`,
      )
      return
    }
    history.remember(typed)
    setText('')
    await runCommand(command, arg)
  }

  const submit = async (typed = text): Promise<void> => {
    const message = typed.trim()
    if (!message) return
    const call = parseSlash(typed)
    if (call) return runSlash(call.name, call.arg, message)
    try {
      if (busy) await enqueue(message)
      else await send(message, { untilGreen })
      history.remember(message)
      setText('')
    } catch {
      // The store showed why; the text stays for another try.
    }
  }
  return { runSlash, submit }
}

interface SuggestionList {
  count: number
  move(step: number): void
  pick(how: 'complete' | 'run'): void
  close(): void
}

/** ↑ ↓ move through the suggestions, Enter runs and Tab completes one, Esc closes the list; true when the key was the list's. */
function listKey(e: React.KeyboardEvent<HTMLTextAreaElement>, list: SuggestionList): boolean {
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    e.preventDefault()
    list.move(e.key === 'ArrowDown' ? 1 : -1)
    return true
  }
  if (e.key === 'Enter' || e.key === 'Tab') {
    e.preventDefault()
    list.pick(e.key === 'Tab' ? 'complete' : 'run')
    return true
  }
  if (e.key === 'Escape') {
    e.preventDefault()
    list.close()
    return true
  }
  return false
}

interface BoxKeys {
  busy: boolean
  approvalWaiting: boolean
  text: string
  history: MessageHistory
  submit(): void
  /** Puts a message from the history in the box. */
  recall(text: string): void
}

/** Enter sends (Shift+Enter breaks the line), Esc stops the turn, ↑ ↓ walk the history at the first or last line. */
function boxKey(e: React.KeyboardEvent<HTMLTextAreaElement>, keys: BoxKeys): void {
  const el = e.currentTarget
  if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
    e.preventDefault()
    keys.submit()
  } else if (e.key === 'Escape' && keys.busy && !keys.approvalWaiting) {
    // While an approval waits, Esc is not "stop": the turn waits for an answer, not to be cut.
    e.preventDefault()
    void stop()
  } else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
    const recalled = keys.history.step(e.key, el, keys.text)
    if (recalled !== null) {
      e.preventDefault()
      keys.recall(recalled)
    }
  }
}

interface MessageBoxProps {
  box: React.RefObject<HTMLTextAreaElement | null>
  text: string
  /** The suggestion list it controls: its id, how many it shows, the one highlighted. */
  list: { id: string; count: number; active: number }
  placeholder: string
  disabled: boolean
  onText(text: string, caret: number): void
  onCaret(caret: number): void
  onKeyDown(e: React.KeyboardEvent<HTMLTextAreaElement>): void
}

/** The text area itself, a combobox over the suggestions; it grows with the text up to 8 lines. */
function MessageBox({
  box,
  text,
  list,
  placeholder,
  disabled,
  onText,
  onCaret,
  onKeyDown,
}: MessageBoxProps): React.JSX.Element {
  return (
    <textarea
      ref={box}
      data-testid="chat-input"
      aria-label="Message the agent"
      aria-autocomplete="list"
      aria-controls={list.count > 0 ? list.id : undefined}
      aria-activedescendant={list.count > 0 ? `${list.id}-${list.active}` : undefined}
      placeholder={placeholder}
      disabled={disabled}
      rows={Math.min(8, Math.max(2, text.split('\n').length))}
      value={text}
      onChange={(e) => onText(e.target.value, e.target.selectionStart)}
      onSelect={(e) => onCaret(e.currentTarget.selectionStart)}
      onKeyDown={onKeyDown}
    />
  )
}

function placeholderFor(repo: string | undefined, busy: boolean): string {
  return !repo
    ? 'Open a project first'
    : busy
      ? 'The agent is working… a message sent now waits for its next step (Esc stops)'
      : 'Ask for a change… (@ to mention a file, / for commands, Enter to send)'
}

function UntilGreenHint(): React.JSX.Element {
  return (
    <p id="until-green-says" className="chat-mode-hint" data-testid="until-green-says">
      <strong>Until green</strong> is on: when the model says it is done, the project&apos;s build and tests
      run, and failures go back to it (up to 15 rounds).
    </p>
  )
}

/** The app's commands and the MCP servers' prompts matching what follows `/`. */
function SlashSuggestions({
  slash,
  active,
  onPick,
}: {
  slash: SlashOffer
  active: number
  onPick(index: number): void
}): React.JSX.Element {
  return (
    <Suggestions
      id="slash-list"
      label="Commands"
      testId="slash-list"
      items={[
        ...slash.commands.map((c): Suggestion => ({ key: c.id, label: slashLabel(c) })),
        ...slash.prompts.map((p): Suggestion => ({
          key: `mcp:${p.command}`,
          label: <PromptLabel prompt={p} />,
        })),
      ]}
      active={active}
      onPick={onPick}
    />
  )
}

/** The project's files and the MCP servers' resources matching what follows `@`. */
function MentionSuggestions({
  mentions,
  active,
  onPick,
}: {
  mentions: MentionOffer
  active: number
  onPick(index: number): void
}): React.JSX.Element {
  return (
    <Suggestions
      id="mention-list"
      label="Files and resources to mention"
      testId="mention-list"
      items={[
        ...mentions.files.map((file): Suggestion => ({ key: file, label: file })),
        ...mentions.resources.map((r): Suggestion => ({
          key: `mcp:${resourceMention(r)}`,
          label: <ResourceLabel resource={r} />,
        })),
      ]}
      active={active}
      onPick={onPick}
    />
  )
}

interface ChatActionsProps {
  untilGreen: boolean
  onUntilGreen(): void
  busy: boolean
  /** A project is open and the box holds text. */
  canSend: boolean
  hasText: boolean
  onSubmit(): void
}

/** Beside the box: Until green, and Send — or, while the agent works, Queue and Stop. */
function ChatActions({
  untilGreen,
  onUntilGreen,
  busy,
  canSend,
  hasText,
  onSubmit,
}: ChatActionsProps): React.JSX.Element {
  return (
    <div className="chat-actions">
      <button
        type="button"
        className={`ui-button small until-green${untilGreen ? ' on' : ''}`}
        aria-pressed={untilGreen}
        data-testid="until-green"
        aria-describedby={untilGreen ? 'until-green-says' : undefined}
        title="When the model says it is done, run the project's build and tests and send failures back (up to 15 rounds)"
        onClick={onUntilGreen}
      >
        Until green
      </button>
      {busy && hasText && (
        <button
          type="button"
          data-testid="queue-button"
          className="ui-button primary"
          title="Send it to the agent at its next step"
          onClick={onSubmit}
        >
          Queue <kbd>↵</kbd>
        </button>
      )}
      {busy ? (
        <button
          type="button"
          data-testid="stop-button"
          className="ui-button danger"
          onClick={() => void stop()}
        >
          Stop <kbd>Esc</kbd>
        </button>
      ) : (
        <button
          type="button"
          data-testid="send-button"
          className="ui-button primary"
          disabled={!canSend}
          onClick={onSubmit}
        >
          Send <kbd>↵</kbd>
        </button>
      )}
    </div>
  )
}
