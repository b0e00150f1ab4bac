import { useCallback, useLayoutEffect, useRef } from 'react'
import type { monaco } from './monaco'

type DiffEditor = monaco.editor.IStandaloneDiffEditor

/**
 * @monaco-editor/react 4.7 disposes a DiffEditor's models before the widget on unmount, which
 * Monaco reports as "TextModel got disposed before DiffEditorWidget model got reset". A DiffEditor
 * that keeps its models (keepCurrentOriginalModel / keepCurrentModifiedModel) and uses this ref
 * passes its onMount editor to the returned function, and has them detached and disposed first: a layout-effect cleanup runs before the wrapper's own.
 */
export function useDiffModelRelease(): (mounted: DiffEditor) => void {
  const editor = useRef<DiffEditor | null>(null)
  useLayoutEffect(
    () => () => {
      const ed = editor.current
      if (!ed) return
      const model = ed.getModel()
      ed.setModel(null)
      model?.original.dispose()
      model?.modified.dispose()
      editor.current = null
    },
    [],
  )
  return useCallback((mounted: DiffEditor) => {
    editor.current = mounted
  }, [])
}
