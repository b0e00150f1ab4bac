import { createJsResolver } from './resolve-js'
import { resolveGo } from './resolve-go'
import { resolveJava } from './resolve-java'
import { projectLayout, type Resolution } from './resolve-layout'
import { resolvePython } from './resolve-python'
import { resolveRust } from './resolve-rust'
import type { FileFacts, ImportFact } from './types'

/*
 * Import → file, against the whole file set. Runs in memory after every build or
 * update (cheap: a Set lookup per candidate), because whether `./b` means b.ts or
 * b/index.ts depends on which files exist, not on the importing file's bytes.
 * The lookup tables are made once (resolve-layout.ts); each language resolves its
 * own imports (resolve-js.ts, resolve-python.ts, resolve-go.ts, resolve-rust.ts,
 * resolve-java.ts).
 */

export type { ImportKind, Resolution } from './resolve-layout'

export type Resolver = (from: string, facts: FileFacts, imp: ImportFact) => Resolution

export function createResolver(files: ReadonlyMap<string, FileFacts>): Resolver {
  const layout = projectLayout(files)
  const resolveJs = createJsResolver(layout)
  return (from, facts, imp) => {
    switch (facts.language) {
      case 'typescript':
      case 'tsx':
      case 'javascript':
        return resolveJs(from, imp.source)
      case 'python':
        return resolvePython(layout, from, imp)
      case 'go':
        return resolveGo(layout, from, imp.source)
      case 'rust':
        return resolveRust(layout, from, imp)
      case 'java':
        return resolveJava(layout, imp.source)
      default:
        return { kind: 'external', targets: [] }
    }
  }
}
