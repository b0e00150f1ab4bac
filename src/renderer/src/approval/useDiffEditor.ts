import type { MonacoDiffEditor } from '@monaco-editor/react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { useDiffModelRelease } from './diffModels'
import { revealLineOf, type Hunk } from './hunks'
import { monaco } from './monaco'

type Decoration = monaco.editor.IModelDeltaDecoration

function lineDecoration(start: number, count: number, className: string, hover?: string): Decoration {
  return {
    range: { startLineNumber: start, startColumn: 1, endLineNumber: start + count - 1, endColumn: 1 },
    options: {
      isWholeLine: true,
      className,
      linesDecorationsClassName: `${className}-gutter`,
      hoverMessage: hover ? { value: hover } : undefined,
    },
  }
}

/** Decorations for rejected hunks (and the focused one) on each side of the diff. */
function hunkDecorations(
  hunks: readonly Hunk[],
  accepted: ReadonlySet<number>,
  focused: number | null,
  side: 'old' | 'new',
): Decoration[] {
  const out: Decoration[] = []
  for (const h of hunks) {
    const start = side === 'old' ? h.oldStart : h.newStart
    const count = side === 'old' ? h.oldLines : h.newLines
    if (count === 0) continue
    if (!accepted.has(h.index)) {
      const hover =
        side === 'new'
          ? 'Rejected hunk: this change will not be applied'
          : 'Rejected hunk: these lines are kept'
      out.push(lineDecoration(start, count, 'approval-line-rejected', hover))
    }
    if (focused === h.index) out.push(lineDecoration(start, count, 'approval-line-focused'))
  }
  return out
}

interface DiffEditorOptions {
  hunks: readonly Hunk[]
  accepted: ReadonlySet<number>
  focused: number | null
  editing: boolean
  /** A new file: shown against itself, every line marked as added. */
  created?: boolean
}

/** Marks the rejected and focused hunks on both sides (and a new file's lines as added); none while editing. */
function useHunkDecorations(editor: MonacoDiffEditor | null, opts: DiffEditorOptions): void {
  const { hunks, accepted, focused, editing, created = false } = opts
  useEffect(() => {
    if (!editor) return
    const original = editor.getOriginalEditor().createDecorationsCollection()
    const modified = editor.getModifiedEditor().createDecorationsCollection()
    // While editing, the modified text no longer matches the hunks' line numbers.
    if (!editing) {
      const model = editor.getModifiedEditor().getModel()
      let lines = model?.getLineCount() ?? 0
      // The empty line after a final newline is not a line of the file.
      if (model && lines > 1 && model.getLineContent(lines) === '') lines -= 1
      const added = created && lines > 0 ? [lineDecoration(1, lines, 'approval-line-added')] : []
      original.set(hunkDecorations(hunks, accepted, focused, 'old'))
      modified.set([...added, ...hunkDecorations(hunks, accepted, focused, 'new')])
    }
    return () => {
      original.clear()
      modified.clear()
    }
  }, [editor, hunks, accepted, focused, editing, created])
}

/**
 * The Monaco diff editor behind the approval panel: rejected-hunk decorations, revealing a hunk, and
 * the edit mode (the modified side becomes editable, starting from the accepted hunks).
 */
export function useDiffEditor(opts: DiffEditorOptions) {
  const [editor, setEditor] = useState<MonacoDiffEditor | null>(null)
  const track = useDiffModelRelease()
  /** The modified model's alternative version when editing began; null when not editing. */
  const editBase = useRef<number | null>(null)
  const [dirty, setDirty] = useState(false)

  const onMount = useCallback(
    (ed: MonacoDiffEditor) => {
      track(ed)
      setEditor(ed)
    },
    [track],
  )

  useEffect(() => {
    const model = editor?.getModifiedEditor().getModel()
    if (!model) return
    const sub = model.onDidChangeContent(() => {
      setDirty(editBase.current !== null && model.getAlternativeVersionId() !== editBase.current)
    })
    return () => sub.dispose()
  }, [editor])

  useHunkDecorations(editor, opts)

  const reveal = useCallback(
    (h: Hunk) => {
      const ed = editor?.getModifiedEditor()
      const lines = ed?.getModel()?.getLineCount()
      if (!ed || !lines) return
      ed.revealLineInCenter(Math.min(revealLineOf(h), lines))
    },
    [editor],
  )

  /** Puts `text` in the modified side and starts counting edits from it. */
  const beginEdit = useCallback(
    (text: string) => {
      const ed = editor?.getModifiedEditor()
      const model = ed?.getModel()
      if (!ed || !model) return false
      editBase.current = null
      if (model.getValue(monaco.editor.EndOfLinePreference.TextDefined, true) !== text) model.setValue(text)
      editBase.current = model.getAlternativeVersionId()
      setDirty(false)
      requestAnimationFrame(() => ed.focus())
      return true
    },
    [editor],
  )

  /** Ends edit mode, putting `text` (the proposal) back in the modified side. */
  const discardEdit = useCallback(
    (text: string) => {
      editBase.current = null
      editor?.getModifiedEditor().getModel()?.setValue(text)
      setDirty(false)
    },
    [editor],
  )

  /** The modified text when the user changed it since editing began, else null. */
  const editedText = useCallback((): string | null => {
    const model = editor?.getModifiedEditor().getModel()
    if (!model || editBase.current === null || model.getAlternativeVersionId() === editBase.current)
      return null
    return model.getValue(monaco.editor.EndOfLinePreference.TextDefined, true)
  }, [editor])

  return { ready: editor !== null, onMount, reveal, beginEdit, discardEdit, editedText, dirty }
}
