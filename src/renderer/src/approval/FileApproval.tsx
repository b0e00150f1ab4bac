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

/**
 * The diff editor and its edit mode: Edit makes the modified side editable, starting from the
 * accepted hunks; Discard puts the proposal back.
 */
function useFileEdit(
  subject: ApprovalCard<'file'>['subject'],
  choice: { hunks: readonly Hunk[]; accepted: ReadonlySet<number>; focused: number | null },
  resolved: boolean,
) {
  const { change: kind, before, after } = subject
  const { hunks, accepted, focused } = choice
  const [editing, setEditing] = useState(false)
  const created = kind === 'create'
  const diff = useDiffEditor({ hunks, accepted, focused, editing, created })
  const canEdit = kind !== 'delete' && diff.ready
  const edited = editing && diff.dirty

  const startEdit = (): void => {
    if (!canEdit || editing || resolved) return
    if (diff.beginEdit(applyHunks(before, after, accepted))) setEditing(true)
  }

  const discardEdit = (): void => {
    diff.discardEdit(after ?? '')
    setEditing(false)
  }

  return { diff, editing, edited, canEdit, created, startEdit, discardEdit }
}

function AgentFileWarning(): React.JSX.Element {
  return (
    <p className="approval-warning" role="note" data-testid="approval-agent-file">
      This file instructs agents or other tools (an editor, a hook, CI): it asks under every policy but
      full-auto. Read it as you would a script.
    </p>
  )
}

/** A proposed file change: the diff, per-hunk choices, editing, and the answer. */
export function FileApproval({ request, queued, onResolve }: FileApprovalProps): React.JSX.Element {
  const { change: kind, before, after, agentFile } = request.subject
  const hunks = useMemo(() => computeHunks(before, after), [before, after])
  const choice = useHunkChoices(hunks)
  const { accepted, focused } = choice
  const panel = useRef<HTMLElement>(null)
  const editorBox = useRef<HTMLDivElement>(null)
  const [layout, setLayout] = useDiffLayout(editorBox)
  // A new file has nothing to put beside it: inline, so it reads as added lines only.
  const sideBySide = kind !== 'create' && layout === 'side'
  const [rejecting, setRejecting] = useState(false)
  const [resolved, resolve] = useResolveOnce(onResolve)
  const titleId = useId()
  const edit = useFileEdit(request.subject, { hunks, accepted, focused }, resolved)
  const { diff, editing, edited, canEdit, startEdit } = edit
  useTakeFocus(panel)

  const blocked = blockedReason(hunks, accepted, edited)

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
        request={request}
        hunks={hunks}
        titleId={titleId}
        queued={queued}
        sideBySide={sideBySide}
        onLayout={setLayout}
      />
      {agentFile && <AgentFileWarning />}

      <FileBody
        subject={request.subject}
        choice={choice}
        edit={edit}
        resolved={resolved}
        sideBySide={sideBySide}
        editorBox={editorBox}
      />

      <ApprovalActions
        acceptLabel={fileAcceptLabel(hunks, accepted, edited)}
        acceptBlockedReason={blocked}
        editKey={canEdit}
        resolved={resolved}
        rejecting={rejecting}
        onRejectingChange={setRejecting}
        onAccept={accept}
        onReject={(reason) => resolve(rejectAnswer(reason))}
      >
        <EditControls edit={edit} resolved={resolved} kind={kind} />
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

/** Which hunks are accepted (all at first), and the one last shown in the editor. */
function useHunkChoices(hunks: readonly Hunk[]) {
  const [accepted, setAccepted] = useState<ReadonlySet<number>>(() => new Set(hunks.map((h) => h.index)))
  const [focused, setFocused] = useState<number | null>(null)
  const toggle = (index: number, accept: boolean): void => {
    setAccepted((prev) => {
      const next = new Set(prev)
      if (accept) next.add(index)
      else next.delete(index)
      return next
    })
  }

  const setAll = (accept: boolean): void => setAccepted(new Set(accept ? hunks.map((h) => h.index) : []))
  return { hunks, accepted, toggle, setAll, focused, setFocused }
}

function rejectAnswer(reason: string | undefined): ApprovalAnswer {
  return reason ? { decision: 'reject', reason } : { decision: 'reject' }
}

/** Why Accept is off: every hunk rejected (and no edit of the user's to send). */
function blockedReason(
  hunks: readonly Hunk[],
  accepted: ReadonlySet<number>,
  edited: boolean,
): string | undefined {
  return !edited && hunks.length > 0 && hunks.every((h) => !accepted.has(h.index))
    ? 'Every hunk is rejected: use Reject (N) instead.'
    : undefined
}

interface FileHeaderProps {
  request: ApprovalCard<'file'>
  hunks: readonly Hunk[]
  titleId: string
  queued: number
  sideBySide: boolean
  onLayout(layout: 'side' | 'inline'): void
}

/** The file, what kind of change, its size, the tool, the queue, and the layout switch. */
function FileHeader({
  request,
  hunks,
  titleId,
  queued,
  sideBySide,
  onLayout,
}: FileHeaderProps): React.JSX.Element {
  const { path, change: kind } = request.subject
  const { tool } = request
  const stats = {
    added: hunks.reduce((n, h) => n + h.newLines, 0),
    removed: hunks.reduce((n, h) => n + h.oldLines, 0),
  }
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

interface EditControlsProps {
  edit: ReturnType<typeof useFileEdit>
  resolved: boolean
  kind: FileChangeKind
}

/** Edit (E) the proposed text; while editing, Discard edits and where the edit stands. */
function EditControls({ edit, resolved, kind }: EditControlsProps): React.JSX.Element {
  const { editing, edited, canEdit } = edit
  if (editing)
    return (
      <>
        <button
          type="button"
          className="approval-button"
          data-testid="discard-edits"
          disabled={resolved}
          onClick={edit.discardEdit}
        >
          Discard edits
        </button>
        <span className="approval-hint" role="status">
          Editing the new text{edited ? ' (changed)' : ''}. Accept sends your version.
        </span>
      </>
    )
  return (
    <button
      type="button"
      className="approval-button"
      data-testid="edit-button"
      disabled={!canEdit || resolved}
      title={kind === 'delete' ? 'A deletion has no text to edit' : undefined}
      onClick={edit.startEdit}
    >
      Edit (E)
    </button>
  )
}

interface FileBodyProps {
  subject: ApprovalCard<'file'>['subject']
  choice: ReturnType<typeof useHunkChoices>
  edit: ReturnType<typeof useFileEdit>
  resolved: boolean
  sideBySide: boolean
  editorBox: React.RefObject<HTMLDivElement | null>
}

/** The diff, and beside it the hunks to accept or reject (clicking one shows it in the diff). */
function FileBody({
  subject,
  choice,
  edit,
  resolved,
  sideBySide,
  editorBox,
}: FileBodyProps): React.JSX.Element {
  const { path, change: kind, before, after } = subject
  const { hunks, accepted, focused, setFocused, toggle, setAll } = choice
  const { diff, editing, created } = edit
  const options = useMemo(() => diffOptions(editing, sideBySide, kind), [editing, sideBySide, kind])
  const show = (h: Hunk): void => {
    setFocused(h.index)
    diff.reveal(h)
  }
  return (
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
  )
}
