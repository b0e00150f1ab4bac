import { DiffEditor, type DiffOnMount } from '@monaco-editor/react'
import type React from 'react'
import { useId, useMemo, useRef, useState, type CSSProperties } from 'react'
import { ApprovalActions } from './ApprovalActions'
import { fileAcceptAnswer, fileAcceptLabel } from './decision'
import { HunkList } from './HunkList'
import { applyHunks, computeHunks, type Hunk } from './hunks'
import { languageForPath, nameDiffSides, useMonacoTheme } from './monaco'
import type { FileChangeKind } from '../../../shared/protocol'
import type { ApprovalAnswer, ApprovalCard } from './types'
import { useDiffLayout } from './diffLayout'
import { useApprovalKeys, useTakeFocus } from './useApprovalKeys'
import { useResolveOnce } from './useResolveOnce'
import { useDiffEditor } from './useDiffEditor'

interface FileApprovalProps {
  request: ApprovalCard<'file'>
  queued: number
  onResolve(answer: ApprovalAnswer): void
}

const KIND_LABEL: Record<FileChangeKind, string> = {
  create: 'new file',
  modify: 'modified',
  delete: 'deleted',
}

// The wrapper's own style is replaced, not merged: fill the editor area whatever its parent's height.
const EDITOR_WRAPPER = { style: { display: 'flex', position: 'absolute', inset: 0 } satisfies CSSProperties }

/** A proposed file change: the diff, per-hunk choices, editing, and the answer. */
export function FileApproval({ request, queued, onResolve }: FileApprovalProps): React.JSX.Element {
  const { path, change: kind, before, after, agentFile } = request.subject
  const { tool } = request
  const hunks = useMemo(() => computeHunks(before, after), [before, after])
  const { accepted, toggle, setAll } = useHunkChoices(hunks)
  const [focused, setFocused] = useState<number | null>(null)
  const panel = useRef<HTMLElement>(null)
  const editorBox = useRef<HTMLDivElement>(null)
  const [layout, setLayout] = useDiffLayout(editorBox)
  // A new file has nothing to put beside it: inline, so it reads as added lines only.
  const sideBySide = kind !== 'create' && layout === 'side'
  const [editing, setEditing] = useState(false)
  const [rejecting, setRejecting] = useState(false)
  const [resolved, resolve] = useResolveOnce(onResolve)
  const titleId = useId()
  const created = kind === 'create'
  const diff = useDiffEditor({ hunks, accepted, focused, editing, created })
  useTakeFocus(panel)

  const added = hunks.reduce((n, h) => n + h.newLines, 0)
  const removed = hunks.reduce((n, h) => n + h.oldLines, 0)
  const canEdit = kind !== 'delete' && diff.ready
  const edited = editing && diff.dirty
  const blocked =
    !edited && hunks.length > 0 && hunks.every((h) => !accepted.has(h.index))
      ? 'Every hunk is rejected: use Reject (N) instead.'
      : undefined

  const options = useMemo(() => diffOptions(editing, sideBySide, kind), [editing, sideBySide, kind])

  const accept = (): void => {
    const answer = fileAcceptAnswer({
      before,
      after,
      hunks,
      accepted,
      editedText: editing ? diff.editedText() : null,
    })
    if (answer) resolve(answer)
  }

  const reject = (reason: string | undefined): void =>
    resolve(reason ? { decision: 'reject', reason } : { decision: 'reject' })

  const startEdit = (): void => {
    if (!canEdit || editing || resolved) return
    if (diff.beginEdit(applyHunks(before, after, accepted))) setEditing(true)
  }

  const discardEdit = (): void => {
    diff.discardEdit(after ?? '')
    setEditing(false)
  }

  const show = (h: Hunk): void => {
    setFocused(h.index)
    diff.reveal(h)
  }

  useApprovalKeys(
    { y: blocked ? undefined : accept, n: () => setRejecting(true), e: startEdit },
    !resolved && !rejecting,
  )

  return (
    <section
      ref={panel}
      tabIndex={-1}
      className="approval-panel"
      aria-labelledby={titleId}
      data-testid="approval-panel"
      data-layout={sideBySide ? 'side' : 'inline'}
    >
      <FileHeader
        kind={kind}
        path={path}
        titleId={titleId}
        stats={{ added, removed }}
        tool={tool}
        queued={queued}
        sideBySide={sideBySide}
        onLayout={setLayout}
      />
      {agentFile && (
        <p className="approval-warning" role="note" data-testid="approval-agent-file">
          This file instructs agents or other tools (an editor, a hook, CI): it asks under every policy but
          full-auto. Read it as you would a script.
        </p>
      )}

      <div className="approval-body">
        <div className="approval-editor" data-testid="approval-diff" ref={editorBox}>
          <FileDiff
            path={path}
            before={before}
            after={after}
            created={created}
            options={options}
            onMount={(ed) => {
              diff.onMount(ed)
              nameDiffSides(ed, () => path)
            }}
          />
        </div>
        {hunks.length > 0 && (
          <HunkList
            hunks={hunks}
            accepted={accepted}
            focused={focused}
            locked={editing || resolved}
            onToggle={toggle}
            onSetAll={setAll}
            onShow={show}
          />
        )}
      </div>

      <ApprovalActions
        acceptLabel={fileAcceptLabel(hunks, accepted, edited)}
        acceptBlockedReason={blocked}
        editKey={canEdit}
        resolved={resolved}
        rejecting={rejecting}
        onRejectingChange={setRejecting}
        onAccept={accept}
        onReject={reject}
      >
        <EditButton
          editing={editing}
          canEdit={canEdit}
          resolved={resolved}
          kind={kind}
          onEdit={startEdit}
          onDiscard={discardEdit}
        />
        {editing && (
          <span className="approval-hint" role="status">
            Editing the new text{edited ? ' (changed)' : ''}. Accept sends your version.
          </span>
        )}
      </ApprovalActions>
    </section>
  )
}

/** The diff editor's options: read-only until Edit, folded to the change, no removed-line gutter for a new file. */
function diffOptions(editing: boolean, sideBySide: boolean, kind: FileChangeKind) {
  return {
    readOnly: !editing,
    originalEditable: false,
    renderSideBySide: sideBySide,
    useInlineViewWhenSpaceIsLimited: false,
    // The change first: unchanged stretches fold away (click to unfold), so a change at line 61
    // is in view without scrolling. Off while editing, where the user moves through the whole text.
    hideUnchangedRegions: {
      enabled: !editing && kind !== 'create',
      contextLineCount: 3,
      minimumLineCount: 5,
      revealLineCount: 20,
    },
    // A new file: no gutter of removed-line markers beside lines that were never there.
    renderIndicators: kind !== 'create',
    // Hunks count whitespace, so the editor must show whitespace-only changes too.
    ignoreTrimWhitespace: false,
    renderMarginRevertIcon: editing,
    minimap: { enabled: false },
    scrollBeyondLastLine: false,
    fontSize: 13,
    readOnlyMessage: { value: 'Press Edit (E) to change the proposed text.' },
  }
}

/** Which hunks are accepted: all at first. */
function useHunkChoices(hunks: readonly Hunk[]) {
  const [accepted, setAccepted] = useState<ReadonlySet<number>>(() => new Set(hunks.map((h) => h.index)))
  const toggle = (index: number, accept: boolean): void => {
    setAccepted((prev) => {
      const next = new Set(prev)
      if (accept) next.add(index)
      else next.delete(index)
      return next
    })
  }

  const setAll = (accept: boolean): void => setAccepted(new Set(accept ? hunks.map((h) => h.index) : []))
  return { accepted, toggle, setAll }
}

interface FileHeaderProps {
  kind: FileChangeKind
  path: string
  titleId: string
  stats: { added: number; removed: number }
  tool: string
  queued: number
  sideBySide: boolean
  onLayout(layout: 'side' | 'inline'): void
}

/** The file, what kind of change, its size, the tool, the queue, and the layout switch. */
function FileHeader({
  kind,
  path,
  titleId,
  stats,
  tool,
  queued,
  sideBySide,
  onLayout,
}: FileHeaderProps): React.JSX.Element {
  return (
    <header className="approval-header">
      <div className="approval-title">
        <span className={`approval-badge approval-badge--${kind}`} data-testid="approval-kind">
          {KIND_LABEL[kind]}
        </span>
        <h2 id={titleId} className="approval-heading approval-path" title={path}>
          <bdi>{path}</bdi>
        </h2>
        <span className="approval-stat approval-stat--add">+{stats.added}</span>
        <span className="approval-stat approval-stat--del">−{stats.removed}</span>
      </div>
      <div className="approval-meta">
        <span>
          via <code>{tool}</code>
        </span>
        {queued > 0 && <span data-testid="approval-queue">1 of {queued + 1}</span>}
        {kind !== 'create' && (
          <span className="approval-segmented" role="group" aria-label="Diff layout">
            <button type="button" aria-pressed={sideBySide} onClick={() => onLayout('side')}>
              Side by side
            </button>
            <button type="button" aria-pressed={!sideBySide} onClick={() => onLayout('inline')}>
              Inline
            </button>
          </span>
        )}
      </div>
    </header>
  )
}

interface FileDiffProps {
  path: string
  before: string | null
  after: string | null
  created: boolean
  options: ReturnType<typeof diffOptions>
  onMount: DiffOnMount
}

function FileDiff({ path, before, after, created, options, onMount }: FileDiffProps): React.JSX.Element {
  const theme = useMonacoTheme()
  return (
    <DiffEditor
      // Monaco diffs an empty "before" as a removed line 1; a new file is compared with itself
      // instead and its lines are marked as added (useDiffEditor), so it reads as added only.
      original={created ? (after ?? '') : (before ?? '')}
      modified={after ?? ''}
      language={languageForPath(path)}
      theme={theme}
      options={options}
      keepCurrentOriginalModel
      keepCurrentModifiedModel
      wrapperProps={EDITOR_WRAPPER}
      loading={<span className="approval-hint">Loading the diff…</span>}
      onMount={onMount}
    />
  )
}

interface EditButtonProps {
  editing: boolean
  canEdit: boolean
  resolved: boolean
  kind: FileChangeKind
  onEdit(): void
  onDiscard(): void
}

/** Edit (E) the proposed text, or, while editing, Discard edits. */
function EditButton({
  editing,
  canEdit,
  resolved,
  kind,
  onEdit,
  onDiscard,
}: EditButtonProps): React.JSX.Element {
  return editing ? (
    <button
      type="button"
      className="approval-button"
      data-testid="discard-edits"
      disabled={resolved}
      onClick={onDiscard}
    >
      Discard edits
    </button>
  ) : (
    <button
      type="button"
      className="approval-button"
      data-testid="edit-button"
      disabled={!canEdit || resolved}
      title={kind === 'delete' ? 'A deletion has no text to edit' : undefined}
      onClick={onEdit}
    >
      Edit (E)
    </button>
  )
}
