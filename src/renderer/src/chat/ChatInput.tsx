import { useEffect, useMemo, useRef, useState } from 'react'
import type React from 'react'
import { invoke, isBusy, send, stop, useApp } from '../state/store'
import { InputHistory, insertMention, matchFiles, mentionAt } from './mentions'
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

/**
 * The message box: Enter sends, Shift+Enter breaks the line, ↑/↓ walk the history
 * (at the first or last line), `@` completes project files, Esc or Stop interrupts
 * the running turn. A refused send keeps the text.
 */
export function ChatInput(): React.JSX.Element {
  const busy = useApp(isBusy)
  const repo = useApp((s) => s.project?.repo)
  const files = useProjectFiles(repo)
  const [text, setText] = useState('')
  const [untilGreen, setUntilGreen] = useState(false)
  const [caret, setCaret] = useState(0)
  // The highlighted suggestion, reset whenever the query changes.
  const [pickState, setPickState] = useState({ query: '', index: 0 })
  const history = useRef(new InputHistory())
  const box = useRef<HTMLTextAreaElement>(null)

  const mention = useMemo(() => mentionAt(text, caret), [text, caret])
  const matches = useMemo(() => (mention ? matchFiles(files, mention.query) : []), [mention, files])
  const showMentions = mention !== null && matches.length > 0

  const active = pickState.query === mention?.query ? pickState.index : 0
  const setActive = (update: (i: number) => number): void =>
    setPickState({ query: mention?.query ?? '', index: update(active) })

  const submit = async (): Promise<void> => {
    const message = text.trim()
    if (!message || busy) return
    try {
      await send(message, { untilGreen })
      history.current.push(message)
      setText('')
    } catch {
      // The store showed why; the text stays for another try.
    }
  }

  const pick = (path: string): void => {
    if (!mention) return
    const next = insertMention(text, mention, path)
    setText(next.text)
    requestAnimationFrame(() => {
      box.current?.setSelectionRange(next.caret, next.caret)
      setCaret(next.caret)
    })
  }

  const onKeyDown = (e: React.KeyboardEvent<HTMLTextAreaElement>): void => {
    if (showMentions) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault()
        const step = e.key === 'ArrowDown' ? 1 : -1
        setActive((i) => (i + step + matches.length) % matches.length)
        return
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault()
        pick(matches[active])
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
    } else if (e.key === 'Escape' && busy) {
      e.preventDefault()
      void stop()
    } else if (e.key === 'ArrowUp' && !el.value.slice(0, el.selectionStart).includes('\n')) {
      const prev = history.current.previous(text)
      if (prev !== null) {
        e.preventDefault()
        setText(prev)
      }
    } else if (e.key === 'ArrowDown' && !el.value.slice(el.selectionEnd).includes('\n')) {
      const next = history.current.next()
      if (next !== null) {
        e.preventDefault()
        setText(next)
      }
    }
  }

  return (
    <div className="chat-input">
      {showMentions && (
        <ul className="mentions" role="listbox" id="mention-list" aria-label="Files to mention">
          {matches.map((file, i) => (
            <li
              key={file}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : undefined}
              onMouseDown={(e) => {
                e.preventDefault()
                pick(file)
              }}
            >
              {file}
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={box}
        data-testid="chat-input"
        aria-label="Message the agent"
        aria-autocomplete="list"
        aria-controls={showMentions ? 'mention-list' : undefined}
        placeholder={repo ? 'Ask for a change… (@ to mention a file, Enter to send)' : 'Open a project first'}
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
          title="When the model says it is done, run the project's build and tests and send failures back (up to 15 rounds)"
          onClick={() => setUntilGreen((on) => !on)}
        >
          Until green
        </button>
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
  )
}
