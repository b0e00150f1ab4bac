import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { HOME_CREDENTIALS } from '../containment/denylist'
import { isInsideResolved } from '../containment/paths'

/*
 * A sandboxed stdio server must still see its own program. The command sandbox hides
 * /tmp, /var/tmp, /run and $HOME, so a server installed there (a checkout in /tmp, a
 * script in ~/mcp/) would fail to start with "no such file". Its script and the package
 * around it (the nearest folder with a package.json or node_modules, for its imports) are
 * bound back read-only. Never the home folder itself, `/`, the project or a folder around it
 * (the project is bound writable), nor a folder that holds or lies in a credential folder.
 */

/** `--ro-bind` arguments for the files a sandboxed server names, to append after the sandbox's own. */
export function serverFileBinds(
  { command, args }: { command: string; args: readonly string[] },
  cwd: string,
  project: string,
  home: string = os.homedir(),
): string[] {
  const named = [command, ...args].filter((a) => a.includes('/')).map((a) => path.resolve(cwd, a))
  const roots = new Set<string>()
  for (const file of named) {
    if (!isFile(file) || isInsideResolved(project, file)) continue
    const root = packageRoot(path.dirname(file))
    // Bound after the project, a folder around it would make the project read-only: skip it.
    if (
      root === '/' ||
      isInsideResolved(root, home) ||
      isInsideResolved(root, project) ||
      touchesCredentials(root, home)
    )
      continue
    roots.add(root)
  }
  // A folder inside another one bound back needs no mount of its own.
  const list = [...roots].filter((r) => ![...roots].some((q) => q !== r && isInsideResolved(q, r)))
  return list.flatMap((r) => ['--ro-bind', r, r])
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile()
  } catch {
    return false
  }
}

/** The nearest folder at or above `dir` with a package.json or node_modules; `dir` when none. */
function packageRoot(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json')) || fs.existsSync(path.join(d, 'node_modules'))) return d
    if (path.dirname(d) === d) return dir
  }
}

function touchesCredentials(root: string, home: string): boolean {
  return HOME_CREDENTIALS.some((rel) => {
    const cred = path.join(home, rel)
    return isInsideResolved(root, cred) || isInsideResolved(cred, root)
  })
}
