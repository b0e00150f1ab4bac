import type { SqliteDatabase } from './sqlite'
import type { Store } from './types'
import { databaseOf } from './handle'

/*
 * The code index's rows (tables code_files, code_index_roots and code_index_memos,
 * see schema.ts), for one project root: the only SQL of the index (codeindex/code-index.ts
 * uses this typed repository). Facts are stored as JSON and parsed by the index on
 * first use; identifier search stays in SQLite so the bulky occurrence lists never
 * fill the heap. `L` is the index's language names: the rows hold what it wrote.
 */

/** What the index knows of a stored file without reading it: enough to skip unchanged bytes. */
export interface KnownFile {
  hash: string
  size: number
  mtimeMs: number
  /** The extractor version that wrote the row. */
  version: number
}

export interface StoredRow extends KnownFile {
  path: string
}

/** What a build's check compares with the disk; `known(path)` has the rest. */
export type StoredStat = Omit<StoredRow, 'hash'>

export interface RootMeta {
  builtAt: number
  fileCount: number
  warning: string | null
}

/** Counts for the index's status, from SQL: no row is loaded into memory for them. */
export interface StoredSummary<L extends string = string> {
  language: L
  files: number
  bytes: number
  withErrors: number
  skipped: number
}

/** A parsed file's row: its facts and identifier occurrences as the index serialised them. */
export interface ParsedRow<L extends string = string> extends StoredRow {
  language: L
  kind: string
  parseErrors: number
  facts: string
  idents: string
}

/** One change to a file's row, written with others in one transaction (`write`). */
export type RowChange<L extends string = string> =
  | { op: 'parsed'; row: ParsedRow<L> }
  /** Same bytes, new mtime: only the stat is updated. */
  | { op: 'touched'; path: string; size: number; mtimeMs: number }
  | { op: 'gone'; path: string }

/** A stored file with syntax errors or indexed by metadata only. */
export interface StoredProblem {
  path: string
  kind: string
  parseErrors: number
}

/** The code index's tables for the project `root` (a root and a prefix make their own key). */
export function openCodeIndexTables<L extends string = string>(store: Store, root: string) {
  return codeIndexTables<L>(databaseOf(store), root)
}

/** The statements of the code index's tables, prepared once per store. */
function codeIndexStatements<L extends string>(db: SqliteDatabase) {
  return {
    paths: db
      .prepare<[string, number], string>('SELECT path FROM code_files WHERE root = ? AND version = ?')
      .pluck(),
    // From the covering index code_files_check alone: reading the rows (their facts and
    // identifiers make them big) cost a check of 72,000 files ~2 s of the main thread.
    page: db.prepare<[string, string, number], StoredStat>(
      'SELECT path, size, mtime_ms AS mtimeMs, version FROM code_files WHERE root = ? AND path > ? ORDER BY path LIMIT ?',
    ),
    summary: db.prepare<[string, number], StoredSummary<L>>(
      `SELECT language, count(*) AS files, sum(size) AS bytes, sum(parse_errors > 0) AS withErrors,
         sum(kind IN ('skipped', 'binary')) AS skipped
       FROM code_files WHERE root = ? AND version = ? GROUP BY language`,
    ),
    problems: db.prepare<[string, number], StoredProblem>(
      `SELECT path, kind, parse_errors AS parseErrors FROM code_files
       WHERE root = ? AND version = ? AND (kind IN ('skipped', 'binary') OR parse_errors > 0)`,
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
    bump: db.prepare<[string]>(
      `INSERT INTO code_index_roots (root, built_at, file_count, warning, generation) VALUES (?, 0, 0, NULL, 1)
       ON CONFLICT (root) DO UPDATE SET generation = generation + 1`,
    ),
    generation: db
      .prepare<[string], number>('SELECT generation FROM code_index_roots WHERE root = ?')
      .pluck(),
    getMemo: db.prepare<[string, string], { generation: number; value: string }>(
      'SELECT generation, value FROM code_index_memos WHERE root = ? AND key = ?',
    ),
    setMemo: db.prepare<[string, string, number, string]>(
      `INSERT INTO code_index_memos (root, key, generation, value) VALUES (?, ?, ?, ?)
       ON CONFLICT (root, key) DO UPDATE SET generation = excluded.generation, value = excluded.value`,
    ),
    dropMemos: db.prepare<[string, number]>('DELETE FROM code_index_memos WHERE root = ? AND generation < ?'),
    getMeta: db.prepare<[string], { built_at: number; file_count: number; warning: string | null }>(
      'SELECT built_at, file_count, warning FROM code_index_roots WHERE root = ?',
    ),
    setMeta: db.prepare<[string, number, number, string | null]>(
      `INSERT INTO code_index_roots (root, built_at, file_count, warning) VALUES (?, ?, ?, ?)
       ON CONFLICT (root) DO UPDATE SET built_at = excluded.built_at, file_count = excluded.file_count, warning = excluded.warning`,
    ),
  }
}

type CodeIndexStatements<L extends string> = ReturnType<typeof codeIndexStatements<L>>

/** The root's two writing transactions: a batch of changes, and removals. */
function codeIndexWrites<L extends string>(db: SqliteDatabase, stmt: CodeIndexStatements<L>, root: string) {
  /** Writes a batch of changes in one transaction; any new or removed row bumps the generation. */
  const write = db.transaction((changes: readonly RowChange<L>[]): void => {
    const now = Date.now()
    let bump = false
    for (const c of changes) {
      if (c.op === 'parsed') {
        const r = c.row
        stmt.upsert.run({
          root,
          path: r.path,
          hash: r.hash,
          size: r.size,
          mtime_ms: r.mtimeMs,
          language: r.language,
          kind: r.kind,
          parse_errors: r.parseErrors,
          version: r.version,
          facts: r.facts,
          idents: r.idents,
          indexed_at: now,
        })
        bump = true
      } else if (c.op === 'touched') {
        stmt.touch.run(c.size, c.mtimeMs, root, c.path)
      } else {
        stmt.remove.run(root, c.path)
        bump = true
      }
    }
    if (bump) stmt.bump.run(root)
  })

  const removeMany = db.transaction((paths: readonly string[]) => {
    if (paths.length > 0) stmt.bump.run(root)
    for (const p of paths) stmt.remove.run(root, p)
  })
  return { write, removeMany }
}

function codeIndexTables<L extends string>(db: SqliteDatabase, root: string) {
  const stmt = codeIndexStatements<L>(db)
  const { write, removeMany } = codeIndexWrites(db, stmt, root)
  return {
    /** The paths stored by this extractor version, read from an index alone (a warm start). */
    paths: (version: number): string[] => stmt.paths.all(root, version),
    /**
     * The stored rows in path order, `limit` at a time after `after` (keyset paging),
     * without their facts: a big index is checked against the disk in slices.
     */
    page: (after: string, limit: number): StoredStat[] => stmt.page.all(root, after, limit),
    summary: (version: number): StoredSummary<L>[] => stmt.summary.all(root, version),
    /** Files indexed by metadata only or with syntax errors, in path order. */
    // Sorted here: an ORDER BY would make SQLite read the big rows instead of the covering index.
    problems: (version: number): StoredProblem[] =>
      stmt.problems.all(root, version).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
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
    write: (changes: readonly RowChange<L>[]): void => write(changes),
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
    /** Counts the changes of this root's rows (0 before the first). */
    generation: (): number => stmt.generation.get(root) ?? 0,
    /** A stored text, if it was made at this generation. */
    memo(key: string, generation: number): string | undefined {
      const m = stmt.getMemo.get(root, key)
      return m?.generation === generation ? m.value : undefined
    },
    setMemo(key: string, generation: number, value: string): void {
      stmt.dropMemos.run(root, generation)
      stmt.setMemo.run(root, key, generation, value)
    },
    setMeta(meta: RootMeta): void {
      stmt.setMeta.run(root, meta.builtAt, meta.fileCount, meta.warning)
    },
  }
}

export type CodeIndexTables<L extends string = string> = ReturnType<typeof codeIndexTables<L>>
