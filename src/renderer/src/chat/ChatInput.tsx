import { useEffect, useMemo, useRef, useState } from 'react'
import type React from 'react'
import { findSlash, needsArg, runCommand, SLASH_COMMANDS, type PaletteCommand } from '../palette/commands'
import { enqueue, invoke, isBusy, send, stop, toast, useApp } from '../state/store'
import { keepDraft, onDraft, takeDraft } from './draft'
import { loadHistory, saveHistory } from './history'
import { insertMention, matchFiles, mentionAt } from './mentions'
import { matchSlash, parseSlash, slashQuery } from './slash'
import {
  matchPrompts,
  matchResources,
  needsPromptArgs,
  placeholderIn,
  promptBeingRun,
  resourceMention,
  useMcpCatalog,
} from './mcpOffers'
import { PromptArgsHint, PromptLabel, ResourceLabel } from './McpSuggestionLabels'
import type { McpPromptView, McpResourceView } from '../../../shared/protocol'
import { QueuedMessages } from './QueuedMessages'
import { Suggestions, type Suggestion } from './Suggestions'
import './chat.css'

/** The project's files for `@` mentions, fetched once per project. */
function useProjectFiles(repo: string | undefined): string[] {
  const [files, setFiles] = useState<string[]>([])
  useEffect(() => {
    if (!repo) return
    let live = true
    invoke('project/files', { repo }).then(
      (r) => live && setFiles(r.files),
      () => live && setFiles([]),
    )
    return () => {
      live = false
    }
  }, [repo])
  return files
}

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
 * (at the first or last line; kept per project across restarts), `@` completes project files
 * and the MCP servers' resources, `/` completes the app's commands (run here, never sent to the
 * model) and the servers' prompts (sent: the core puts the prompt's text in), Esc or Stop interrupts
 * the running turn. While the agent works, Enter queues the message for its next step
 * (QueuedMessages shows, edits and takes back what waits). A refused send keeps the text.
 */
export function ChatInput(): React.JSX.Element {
  const busy = useApp(isBusy)
  const repo = useApp((s) => s.project?.repo)
  const sessionId = useApp((s) => s.sessionId)
  const approvalWaiting = useApp((s) => s.view.pendingApprovals.length > 0)
  const files = useProjectFiles(repo)
  const mcp = useMcpCatalog(repo)
  const [text, setText] = useState('')
  const [untilGreen, setUntilGreen] = useState(false)
  const [caret, setCaret] = useState(0)
  // The highlighted suggestion, reset whenever the query changes.
  const [pickState, setPickState] = useState({ query: '', index: 0 })
  const history = useMemo(() => loadHistory(repo ?? ''), [repo])
  const box = useRef<HTMLTextAreaElement>(null)

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
    [],
  )

  const mention = useMemo(() => mentionAt(text, caret), [text, caret])
  const matches = useMemo(() => (mention ? matchFiles(files, mention.query) : []), [mention, files])
  const resources = useMemo(
    () => (mention ? matchResources(mcp.resources, mention.query) : []),
    [mention, mcp.resources],
  )
  const slashQ = useMemo(() => slashQuery(text, caret), [text, caret])
  const commands = useMemo(() => (slashQ === null ? [] : matchSlash(SLASH_COMMANDS, slashQ)), [slashQ])
  const prompts = useMemo(
    () => (slashQ === null ? [] : matchPrompts(mcp.prompts, slashQ)),
    [slashQ, mcp.prompts],
  )
  const showSlash = commands.length + prompts.length > 0
  const showMentions = !showSlash && mention !== null && matches.length + resources.length > 0
  const runningPrompt = showSlash ? undefined : promptBeingRun(mcp.prompts, text)
  const query = showSlash ? `/${slashQ}` : (mention?.query ?? '')
  const count = showSlash
    ? commands.length + prompts.length
    : showMentions
      ? matches.length + resources.length
      : 0
  const listId = showSlash ? 'slash-list' : 'mention-list'

  const active = pickState.query === query ? Math.min(pickState.index, Math.max(count - 1, 0)) : 0
  const setActive = (update: (i: number) => number): void => setPickState({ query, index: update(active) })

  const remember = (message: string): void => {
    history.push(message)
    if (repo) saveHistory(repo, history)
  }

  /** `end`: select up to there (a template's placeholder, to type over). */
  const setTextAndCaret = (next: string, at = next.length, end = at): void => {
    setText(next)
    requestAnimationFrame(() => {
      box.current?.setSelectionRange(at, end)
      setCaret(at)
    })
  }

  /** Runs `/name arg` in the app; an unknown name is said, never sent to the model. */
  const runSlash = async (name: string, arg: string, typed: string): Promise<void> => {
    const command = findSlash(name)
    if (!command) {
      toast(
        'info',
        `Unknown command /${name}. Type / to see the commands; start with a space to send it as text.`,
      )
      return
    }
    remember(typed)
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
      remember(message)
      setText('')
    } catch {
      // The store showed why; the text stays for another try.
    }
  }

  const pick = (path: string): void => {
    if (!mention) return
    const next = insertMention(text, mention, path)
    setTextAndCaret(next.text, next.caret)
  }

  /** A resource: `@server:uri `; a template's first `{…}` is selected, to type its value over it. */
  const pickResource = (resource: McpResourceView): void => {
    if (!mention) return
    const next = insertMention(text, mention, resourceMention(resource))
    const hole = resource.template ? placeholderIn(resourceMention(resource)) : undefined
    const at = mention.start + 1
    if (hole) setTextAndCaret(next.text, at + hole.start, at + hole.end)
    else setTextAndCaret(next.text, next.caret)
  }

  /** A server prompt: Tab completes it; Enter sends it, unless a required argument is still to type. */
  const pickPrompt = (prompt: McpPromptView, how: 'complete' | 'run'): void => {
    const rest = text.replace(/^\/\S*/, '').trim()
    if (how === 'run' && (!needsPromptArgs(prompt) || rest))
      void submit(`/${prompt.command}${rest ? ` ${rest}` : ''}`)
    else setTextAndCaret(`/${prompt.command} ${rest}`)
  }

  const pickSlash = (index: number, how: 'complete' | 'run'): void => {
    if (index < commands.length) pickCommand(commands[index], how)
    else pickPrompt(prompts[index - commands.length], how)
  }

  const pickMention = (index: number): void => {
    if (index < matches.length) pick(matches[index])
    else pickResource(resources[index - matches.length])
  }

  /** Tab completes the name; Enter runs it, unless it still needs its argument (then completes it). */
  const pickCommand = (command: PaletteCommand, how: 'complete' | 'run'): void => {
    const rest = text.replace(/^\/[a-z0-9-]*/i, '').trim()
    if (how === 'run' && (!needsArg(command) || rest))
      void runSlash(command.slash!, rest, `/${command.slash}`)
    else setTextAndCaret(`/${command.slash} ${rest}`)
  }

  const onKeyDown = (e: React.KeyboardEvent<HTMLTextAreaElement>): void => {
    if (showSlash || showMentions) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault()
        const step = e.key === 'ArrowDown' ? 1 : -1
        setActive((i) => (i + step + count) % count)
        return
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault()
        if (showSlash) pickSlash(active, e.key === 'Tab' ? 'complete' : 'run')
        else pickMention(active)
        return
      }
      if (e.key === 'Escape') {
        e.preventDefault()
        setCaret(-1)
        return
      }
    }
    const el = e.currentTarget
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      void submit()
    } else if (e.key === 'Escape' && busy && !approvalWaiting) {
      // While an approval waits, Esc is not "stop": the turn waits for an answer, not to be cut.
      e.preventDefault()
      void stop()
    } else if (e.key === 'ArrowUp' && !el.value.slice(0, el.selectionStart).includes('\n')) {
      const prev = history.previous(text)
      if (prev !== null) {
        e.preventDefault()
        setText(prev)
      }
    } else if (e.key === 'ArrowDown' && !el.value.slice(el.selectionEnd).includes('\n')) {
      const next = history.next()
      if (next !== null) {
        e.preventDefault()
        setText(next)
      }
    }
  }

  return (
    <>
      <QueuedMessages />
      {runningPrompt && <PromptArgsHint prompt={runningPrompt} />}
      {untilGreen && (
        <p id="until-green-says" className="chat-mode-hint" data-testid="until-green-says">
          <strong>Until green</strong> is on: when the model says it is done, the project&apos;s build and
          tests run, and failures go back to it (up to 15 rounds).
        </p>
      )}
      <div className="chat-input">
        {showSlash && (
          <Suggestions
            id="slash-list"
            label="Commands"
            testId="slash-list"
            items={[
              ...commands.map((c): Suggestion => ({ key: c.id, label: slashLabel(c) })),
              ...prompts.map((p): Suggestion => ({
                key: `mcp:${p.command}`,
                label: <PromptLabel prompt={p} />,
              })),
            ]}
            active={active}
            onPick={(i) => pickSlash(i, 'run')}
          />
        )}
        {showMentions && (
          <Suggestions
            id="mention-list"
            label="Files and resources to mention"
            testId="mention-list"
            items={[
              ...matches.map((file): Suggestion => ({ key: file, label: file })),
              ...resources.map((r): Suggestion => ({
                key: `mcp:${resourceMention(r)}`,
                label: <ResourceLabel resource={r} />,
              })),
            ]}
            active={active}
            onPick={pickMention}
          />
        )}
        <textarea
          ref={box}
          data-testid="chat-input"
          aria-label="Message the agent"
          aria-autocomplete="list"
          aria-controls={count > 0 ? listId : undefined}
          aria-activedescendant={count > 0 ? `${listId}-${active}` : undefined}
          placeholder={
            !repo
              ? 'Open a project first'
              : busy
                ? 'The agent is working… a message sent now waits for its next step (Esc stops)'
                : 'Ask for a change… (@ to mention a file, / for commands, Enter to send)'
          }
          disabled={!repo}
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          value={text}
          onChange={(e) => {
            setText(e.target.value)
            setCaret(e.target.selectionStart)
          }}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
        />
        <div className="chat-actions">
          <button
            type="button"
            className={`ui-button small until-green${untilGreen ? ' on' : ''}`}
            aria-pressed={untilGreen}
            data-testid="until-green"
            aria-describedby={untilGreen ? 'until-green-says' : undefined}
            title="When the model says it is done, run the project's build and tests and send failures back (up to 15 rounds)"
            onClick={() => setUntilGreen((on) => !on)}
          >
            Until green
          </button>
          {busy && text.trim() && (
            <button
              type="button"
              data-testid="queue-button"
              className="ui-button primary"
              title="Send it to the agent at its next step"
              onClick={() => void submit()}
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
              disabled={!repo || !text.trim()}
              onClick={() => void submit()}
            >
              Send <kbd>↵</kbd>
            </button>
          )}
        </div>
      </div>
    </>
  )
}
