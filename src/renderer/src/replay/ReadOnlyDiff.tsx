import { DiffEditor } from '@monaco-editor/react'
import type React from 'react'
import { useDiffModelRelease } from '../approval/diffModels'
import { languageForPath, useMonacoTheme } from '../approval/monaco'

/** A read-only Monaco diff of one file; its models are kept and released by useDiffModelRelease. */
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
  const track = useDiffModelRelease()
  return (
    <DiffEditor
      original={before}
      modified={after}
      language={languageForPath(path)}
      theme={theme}
      keepCurrentOriginalModel
      keepCurrentModifiedModel
      onMount={track}
      options={{
        readOnly: true,
        renderSideBySide: false,
        minimap: { enabled: false },
        automaticLayout: true,
      }}
    />
  )
}
