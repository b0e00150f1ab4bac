import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'

/*
 * The CLI's `.env`: as the original agent did, a `.env` beside the program (the folder
 * `stepwise` is installed or checked out in) supplies the model settings a shell did not
 * export. Only these names are taken, an exported value always wins, and the file is
 * never read when that folder is the project being edited or inside it: a project's own
 * `.env` holds the project's secrets, which the agent must never see.
 */

/** The names a `.env` beside stepwise may supply. */
export const DOTENV_NAMES = ['OPENAI_API_KEY', 'OPENAI_MODEL', 'OPENAI_BASE_URL'] as const

/** KEY=VALUE lines (`export` prefix, quotes and `#` comments allowed), as dotenv files are written. */
export function parseDotenv(text: string): Map<string, string> {
  const values = new Map<string, string>()
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line)
    if (!m) continue
    let value = m[2]
    const quote = value[0]
    if ((quote === '"' || quote === "'") && value.indexOf(quote, 1) > 0) {
      value = value.slice(1, value.indexOf(quote, 1))
    } else {
      value = value.replace(/\s+#.*$/, '').trim()
    }
    values.set(m[1], value)
  }
  return values
}

/** The one field of a package.json looked at: other manifests are passed by, not errors. */
const PackageName = z.object({ name: z.unknown() })

/** The folder holding stepwise's own package.json, found upward from this module. */
export function programFolder(from = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const pkg: unknown = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
      if (PackageName.safeParse(pkg).data?.name === 'stepwise') return dir
    } catch {
      // no package.json here, or not JSON: keep looking upward
    }
    if (path.dirname(dir) === dir) return undefined
  }
}

const inside = (child: string, parent: string) => {
  const rel = path.relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/**
 * Sets the DOTENV_NAMES that `env` lacks from `<folder>/.env`; returns the names it set.
 * Nothing is read when `folder` is the project (`repo`) or inside it.
 */
export function loadProgramDotenv(
  env: NodeJS.ProcessEnv,
  repo: string,
  folder: string | undefined = programFolder(),
): string[] {
  if (!folder) return []
  const realOf = (p: string) => {
    try {
      return fs.realpathSync(p)
    } catch {
      return path.resolve(p)
    }
  }
  if (inside(realOf(folder), realOf(repo))) return []
  let text: string
  try {
    text = fs.readFileSync(path.join(folder, '.env'), 'utf8')
  } catch {
    return []
  }
  const values = parseDotenv(text)
  const set: string[] = []
  for (const name of DOTENV_NAMES) {
    const value = values.get(name)
    if (value && !env[name]) {
      env[name] = value
      set.push(name)
    }
  }
  return set
}
