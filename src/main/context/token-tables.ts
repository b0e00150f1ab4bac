import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import { isRecord } from '../../shared/records'

/**
 * The rank tables of gpt-tokenizer's encodings, which tokens.ts counts with. The library ships
 * each as a 2.4 MB JavaScript module of one array literal; compiling it held ~18 MB more of a
 * session's memory for good (parser memory, the script's source and constants) and took ~30 ms
 * longer than parsing the same array as JSON. So the build writes each table beside the main
 * bundle (electron.vite.config.ts), named with the library's version, and a session reads that;
 * run from the sources (tests) or when the file is missing, the library's own module. Either way
 * the table is the library's, given to the library's own encoder.
 *
 * The file is the array in V8's serialization format (`v8.serialize`), not JSON: reading the
 * o200k table back takes 33–35 ms against 75–88 ms for the 2 MB of JSON (decoding it as UTF-8, then
 * parsing), paid by every session before its first request. V8 reads the format of its own and
 * older versions, so the Electron app (a newer V8 than the Node that built it) reads it too; a
 * runtime older than the build's (or a damaged file) cannot, and falls back to the module.
 */

export const ENCODINGS = ['o200k_base', 'cl100k_base'] as const
export type Encoding = (typeof ENCODINGS)[number]

/** One entry per rank: the token's text, or its bytes when they are not UTF-8. */
export type RankTable = ReadonlyArray<string | readonly number[]>

const load = createRequire(import.meta.url)

function libraryVersion(): string {
  const pkg: unknown = load('gpt-tokenizer/package.json')
  if (!isRecord(pkg) || typeof pkg.version !== 'string')
    throw new Error('gpt-tokenizer/package.json names no version.')
  return pkg.version
}

/** Every rank from 0 up holds a token (JSON keeps no gap), as text or as bytes. */
function isRankTable(value: unknown): value is RankTable {
  if (!Array.isArray(value) || value.length === 0) return false
  for (let i = 0; i < value.length; i++) {
    const token: unknown = value[i]
    if (typeof token !== 'string' && !Array.isArray(token)) return false
  }
  return true
}

/**
 * Where the build writes `encoding`'s table, relative to the main bundle's folder. The version in
 * the name keeps a build from reading the table of another install's library.
 */
export function builtTablePath(encoding: Encoding): string {
  return `tokenizer/gpt-tokenizer-${libraryVersion()}-${encoding}.v8`
}

/** The library's table, from its module. */
export function libraryTable(encoding: Encoding): RankTable {
  const mod: unknown = load(`gpt-tokenizer/bpeRanks/${encoding}`)
  const table = isRecord(mod) ? mod.default : undefined
  if (!isRankTable(table))
    throw new Error(
      `gpt-tokenizer/bpeRanks/${encoding} exports no gapless rank table: not the gpt-tokenizer expected.`,
    )
  return table
}

/** The table as the build writes it. */
export function tableBytes(encoding: Encoding): Buffer {
  return v8.serialize(libraryTable(encoding))
}

/** A table file's contents, or undefined when they are not one (damaged, or from a newer V8). */
function readTable(data: Buffer): RankTable | undefined {
  let value: unknown
  try {
    value = v8.deserialize(data)
  } catch {
    return undefined
  }
  return isRankTable(value) ? value : undefined
}

/**
 * `encoding`'s table: the build's file when one lies beside this module (in the bundle's folder,
 * or the one above it for a module in chunks/), else the library's module.
 */
export function rankTable(
  encoding: Encoding,
  from = path.dirname(fileURLToPath(import.meta.url)),
): RankTable {
  const name = builtTablePath(encoding)
  for (const dir of [from, path.dirname(from)]) {
    let data: Buffer
    try {
      data = fs.readFileSync(path.join(dir, name))
    } catch {
      continue
    }
    // A damaged file is passed over like a missing one: the library's module holds the same table.
    const table = readTable(data)
    if (table) return table
  }
  return libraryTable(encoding)
}
