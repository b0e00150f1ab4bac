import type { Node } from 'web-tree-sitter'

/*
 * Identifier occurrences, for find_references and the reference counts of the
 * repo map. Walking every leaf of a tree-sitter tree from JavaScript costs about
 * as much as parsing; instead the source is tokenised with a regex and the
 * ranges the tree marks as comments, strings and regexes are skipped, so what
 * remains are the code's identifiers and property names.
 *
 * Stored per file as `\nname:line,line,…` for each distinct name, which SQLite
 * searches with instr() without a row per occurrence.
 */

/** At most this many lines are kept per name and file (the count of files stays exact). */
export const MAX_LINES_PER_NAME = 50
/** At most this many distinct names per file (generated files can have tens of thousands). */
export const MAX_NAMES_PER_FILE = 5000

const KEYWORDS = new Set(
  (
    'if else for while do switch case default break continue return function class const let var new this ' +
    'import export from as async await yield try catch finally throw typeof instanceof in of void delete ' +
    'true false null undefined extends implements interface type enum public private protected static ' +
    'readonly abstract declare namespace module get set super def self None True False elif pass lambda ' +
    'with global nonlocal is not and or raise except func go defer chan select package range struct map ' +
    'fn impl trait pub mut use mod crate match loop where dyn ref move unsafe Self final synchronized ' +
    'throws boolean int long double float char byte short string number any unknown never object keyof'
  ).split(' '),
)

const IDENT_RE = /[A-Za-z_$][\w$]*/g

/**
 * The identifiers of `text` outside `skip` (nodes in document order), as the
 * stored `\nname:lines` string.
 */
export function collectIdents(text: string, skip: readonly Node[]): string {
  const lines = new Map<string, number[]>()
  let k = 0
  let skipStart = skip.length > 0 ? skip[0].startIndex : Infinity
  let skipEnd = skip.length > 0 ? skip[0].endIndex : Infinity
  let row = 1
  let scanned = 0
  IDENT_RE.lastIndex = 0
  for (let m = IDENT_RE.exec(text); m !== null; m = IDENT_RE.exec(text)) {
    const at = m.index
    while (at >= skipEnd) {
      k++
      skipStart = k < skip.length ? skip[k].startIndex : Infinity
      skipEnd = k < skip.length ? skip[k].endIndex : Infinity
    }
    if (at >= skipStart) {
      // Jump past the skipped range rather than matching every word inside it.
      IDENT_RE.lastIndex = skipEnd
      continue
    }
    const name = m[0]
    if (name.length < 2 || KEYWORDS.has(name) || (name.charCodeAt(0) >= 48 && name.charCodeAt(0) <= 57))
      continue
    for (let nl = text.indexOf('\n', scanned); nl !== -1 && nl < at; nl = text.indexOf('\n', nl + 1)) row++
    scanned = at
    let list = lines.get(name)
    if (!list) {
      if (lines.size >= MAX_NAMES_PER_FILE) continue
      list = []
      lines.set(name, list)
    }
    if (list.length < MAX_LINES_PER_NAME && list[list.length - 1] !== row) list.push(row)
  }
  let out = ''
  for (const [name, rows] of lines) out += `\n${name}:${rows.join(',')}`
  return out
}

/** The lines `name` occurs on in a stored idents string (empty when it does not). */
export function identLines(idents: string, name: string): number[] {
  const key = `\n${name}:`
  const at = idents.indexOf(key)
  if (at === -1) return []
  const start = at + key.length
  const end = idents.indexOf('\n', start)
  return idents
    .slice(start, end === -1 ? undefined : end)
    .split(',')
    .map(Number)
}

/** Every distinct name in a stored idents string. */
export function identNames(idents: string): string[] {
  const out: string[] = []
  for (let at = idents.indexOf('\n'); at !== -1;) {
    const colon = idents.indexOf(':', at)
    out.push(idents.slice(at + 1, colon))
    at = idents.indexOf('\n', colon)
  }
  return out
}
