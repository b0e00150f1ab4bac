import { DiffEditor } from '@monaco-editor/react'
import { useEffect, useRef } from 'react'
import type React from 'react'
import { useDiffModelRelease } from '../approval/diffModels'
import { languageForPath, nameDiffSides, useMonacoTheme } from '../approval/monaco'

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
  const shown = useRef(path)
  useEffect(() => {
    shown.current = path
  }, [path])
  return (
    <DiffEditor
      original={before}
      modified={after}
      language={languageForPath(path)}
      theme={theme}
      keepCurrentOriginalModel
      keepCurrentModifiedModel
      onMount={(ed) => {
        track(ed)
        nameDiffSides(ed, () => shown.current)
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
