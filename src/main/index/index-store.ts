import type { SqliteDatabase } from '../store/sqlite'
import type { FileOutcome, KnownFile } from './process-file'
import type { FileFacts, FileKind, Language } from './types'

/*
 * The index's rows in SQLite (tables code_files and code_index_roots, see
 * store/schema.ts), for one project root. Facts are stored as JSON and parsed
 * on first use (code-index.ts); identifier search stays in SQLite so the bulky
 * occurrence lists never fill the heap.
 */

/**
 * What a warm start loads of each stored file: enough to list it, count it and
 * tell by size and mtime whether it changed. Its facts are parsed on first use.
 */
export interface StoredMeta extends KnownFile {
  path: string
  language: Language
  kind: FileKind
  parseErrors: number
}

export interface RootMeta {
  builtAt: number
  fileCount: number
  warning: string | null
}

type MetaRow = {
  path: string
  hash: string
  size: number
  mtime_ms: number
  version: number
  language: Language
  kind: FileKind
  parse_errors: number
}
const META = 'path, hash, size, mtime_ms, version, language, kind, parse_errors'
const toMeta = (r: MetaRow): StoredMeta => ({
  path: r.path,
  hash: r.hash,
  size: r.size,
  mtimeMs: r.mtime_ms,
  version: r.version,
  language: r.language,
  kind: r.kind,
  parseErrors: r.parse_errors,
})

export function createIndexStore(db: SqliteDatabase, root: string) {
  const stmt = {
    meta: db.prepare<[string, number], MetaRow>(
      `SELECT ${META} FROM code_files WHERE root = ? AND version = ?`,
    ),
    stale: db.prepare<[string, number], MetaRow>(
      `SELECT ${META} FROM code_files WHERE root = ? AND version <> ?`,
    ),
    facts: db.prepare<[string, string, number], { facts: string }>(
      'SELECT facts FROM code_files WHERE root = ? AND path = ? AND version = ?',
    ),
    allFacts: db.prepare<[string, number], { path: string; facts: string }>(
      'SELECT path, facts FROM code_files WHERE root = ? AND version = ?',
    ),
    one: db.prepare<[string, string], { hash: string; size: number; mtime_ms: number; version: number }>(
      'SELECT hash, size, mtime_ms, version FROM code_files WHERE root = ? AND path = ?',
    ),
    upsert: db.prepare(
      `INSERT INTO code_files (root, path, hash, size, mtime_ms, language, kind, parse_errors, version, facts, idents, indexed_at)
       VALUES (@root, @path, @hash, @size, @mtime_ms, @language, @kind, @parse_errors, @version, @facts, @idents, @indexed_at)
       ON CONFLICT (root, path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mtime_ms = excluded.mtime_ms,
         language = excluded.language, kind = excluded.kind, parse_errors = excluded.parse_errors,
         version = excluded.version, facts = excluded.facts, idents = excluded.idents, indexed_at = excluded.indexed_at`,
    ),
    touch: db.prepare<[number, number, string, string]>(
      'UPDATE code_files SET size = ?, mtime_ms = ? WHERE root = ? AND path = ?',
    ),
    remove: db.prepare<[string, string]>('DELETE FROM code_files WHERE root = ? AND path = ?'),
    withIdent: db.prepare<[string, string], { path: string; idents: string }>(
      'SELECT path, idents FROM code_files WHERE root = ? AND instr(idents, ?) > 0 ORDER BY path',
    ),
    allIdents: db.prepare<[string], { path: string; idents: string }>(
      "SELECT path, idents FROM code_files WHERE root = ? AND idents <> ''",
    ),
    getMeta: db.prepare<[string], { built_at: number; file_count: number; warning: string | null }>(
      'SELECT built_at, file_count, warning FROM code_index_roots WHERE root = ?',
    ),
    setMeta: db.prepare<[string, number, number, string | null]>(
      `INSERT INTO code_index_roots (root, built_at, file_count, warning) VALUES (?, ?, ?, ?)
       ON CONFLICT (root) DO UPDATE SET built_at = excluded.built_at, file_count = excluded.file_count, warning = excluded.warning`,
    ),
  }

  /** Writes a batch of outcomes in one transaction; returns the parsed facts by path. */
  const apply = db.transaction(
    (outcomes: readonly FileOutcome[], version: number): Map<string, FileFacts> => {
      const parsed = new Map<string, FileFacts>()
      const now = Date.now()
      for (const o of outcomes) {
        if (o.status === 'parsed') {
          const facts = JSON.parse(o.facts) as FileFacts
          parsed.set(o.rel, facts)
          stmt.upsert.run({
            root,
            path: o.rel,
            hash: o.hash,
            size: o.size,
            mtime_ms: o.mtimeMs,
            language: facts.language,
            kind: facts.kind,
            parse_errors: facts.parseErrors,
            version,
            facts: o.facts,
            idents: o.idents,
            indexed_at: now,
          })
        } else if (o.status === 'touched') {
          stmt.touch.run(o.size, o.mtimeMs, root, o.rel)
        } else if (o.status === 'gone') {
          stmt.remove.run(root, o.rel)
        }
      }
      return parsed
    },
  )

  const removeMany = db.transaction((paths: readonly string[]) => {
    for (const p of paths) stmt.remove.run(root, p)
  })

  return {
    /** Every stored file of this extractor version, without its facts (a warm start). */
    loadMeta: (version: number): StoredMeta[] => stmt.meta.all(root, version).map(toMeta),
    /** Stored files of another extractor version: re-parsed, their hashes still known. */
    staleMeta: (version: number): StoredMeta[] => stmt.stale.all(root, version).map(toMeta),
    /** One file's stored facts, as JSON. */
    facts: (path: string, version: number): string | undefined => stmt.facts.get(root, path, version)?.facts,
    /** Every file's stored facts, streamed (what the graph needs). */
    *allFacts(version: number): Generator<{ path: string; facts: string }> {
      yield* stmt.allFacts.iterate(root, version)
    },
    known(path: string): KnownFile | undefined {
      const r = stmt.one.get(root, path)
      return r ? { hash: r.hash, size: r.size, mtimeMs: r.mtime_ms, version: r.version } : undefined
    },
    apply: (outcomes: readonly FileOutcome[], version: number) => apply(outcomes, version),
    remove: (paths: readonly string[]) => removeMany(paths),
    /** Files whose identifiers include `name` (exact, case-sensitive). */
    filesWithIdent: (name: string) => stmt.withIdent.all(root, `\n${name}:`),
    /** Every file's identifier string, streamed (for reference counts). */
    *allIdents(): Generator<{ path: string; idents: string }> {
      yield* stmt.allIdents.iterate(root)
    },
    meta(): RootMeta | undefined {
      const m = stmt.getMeta.get(root)
      return m ? { builtAt: m.built_at, fileCount: m.file_count, warning: m.warning } : undefined
    },
    setMeta(meta: RootMeta): void {
      stmt.setMeta.run(root, meta.builtAt, meta.fileCount, meta.warning)
    },
  }
}

export type IndexStore = ReturnType<typeof createIndexStore>
