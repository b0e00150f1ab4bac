import { DiffEditor, type DiffOnMount } from '@monaco-editor/react'
import { useLayoutEffect, useRef } from 'react'
import type React from 'react'
import { languageForPath, useMonacoTheme } from '../approval/monaco'

type DiffInstance = Parameters<DiffOnMount>[0]

/**
 * A read-only Monaco diff of one file. @monaco-editor/react 4.7 disposes the models
 * before the widget on unmount (Monaco then throws "TextModel got disposed before
 * DiffEditorWidget model got reset"), so the models are kept and released here, in
 * a layout-effect cleanup that runs before the wrapper's own.
 */
export function ReadOnlyDiff({
  path,
  before,
  after,
}: {
  path: string
  before: string
  after: string
}): React.JSX.Element {
  const theme = useMonacoTheme()
  const editor = useRef<DiffInstance | null>(null)
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
  return (
    <DiffEditor
      original={before}
      modified={after}
      language={languageForPath(path)}
      theme={theme}
      keepCurrentOriginalModel
      keepCurrentModifiedModel
      onMount={(ed) => {
        editor.current = ed
      }}
      options={{
        readOnly: true,
        renderSideBySide: false,
        minimap: { enabled: false },
        automaticLayout: true,
      }}
    />
  )
}
