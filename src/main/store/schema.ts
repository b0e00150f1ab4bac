import { upgradeApprovalPayload } from '../../shared/protocol/approval'
import { isRecord } from '../../shared/records'
import type { Migration } from './db'

/**
 * The store's schema, one migration per version (index 0 → user_version 1).
 * Append new migrations; never edit a released one.
 */
export const migrations: readonly Migration[] = [
  (db) => {
    db.exec(`
      CREATE TABLE sessions (
        id         TEXT PRIMARY KEY,
        repo       TEXT NOT NULL,
        title      TEXT NOT NULL,
        provider   TEXT NOT NULL,
        model      TEXT NOT NULL,
        status     TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        parent_id  TEXT REFERENCES sessions(id) ON DELETE SET NULL,
        fork_seq   INTEGER
      );
      CREATE INDEX sessions_by_repo ON sessions(repo, updated_at);
      CREATE INDEX sessions_by_updated ON sessions(updated_at);

      CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        ts         INTEGER NOT NULL,
        type       TEXT NOT NULL,
        payload    TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      );

      CREATE TABLE traffic (
        id         INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        ts         INTEGER NOT NULL,
        direction  TEXT NOT NULL,
        provider   TEXT NOT NULL,
        url        TEXT NOT NULL,
        status     INTEGER,
        body       TEXT NOT NULL
      );
      CREATE INDEX traffic_by_session ON traffic(session_id, id);

      CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;

      -- Content-addressed file contents: sha256 of the raw bytes → compressed bytes.
      -- encoding 0 = raw, 1 = deflate-raw, 2 = brotli (see snapshot/blobs.ts).
      CREATE TABLE blobs (
        hash     TEXT PRIMARY KEY,
        size     INTEGER NOT NULL,
        encoding INTEGER NOT NULL,
        data     BLOB NOT NULL
      );

      -- A snapshot's manifest is itself a blob, so an unchanged tree costs one row.
      CREATE TABLE snapshots (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id    TEXT REFERENCES sessions(id) ON DELETE SET NULL,
        root          TEXT NOT NULL,
        label         TEXT,
        created_at    INTEGER NOT NULL,
        manifest_hash TEXT NOT NULL REFERENCES blobs(hash),
        file_count    INTEGER NOT NULL,
        total_bytes   INTEGER NOT NULL
      );
      CREATE INDEX snapshots_by_root ON snapshots(root, id);
      CREATE INDEX snapshots_by_session ON snapshots(session_id, id);

      -- Like git's index: lets a snapshot reuse a file's hash without reading it.
      CREATE TABLE stat_cache (
        root       TEXT NOT NULL,
        path       TEXT NOT NULL,
        size       INTEGER NOT NULL,
        mtime_ms   REAL NOT NULL,
        ino        INTEGER NOT NULL,
        mode       INTEGER NOT NULL,
        hash       TEXT NOT NULL,
        checked_at REAL NOT NULL,
        PRIMARY KEY (root, path)
      ) WITHOUT ROWID;
    `)
  },
  // The code index (src/main/codeindex): one row per file and project root, keyed by
  // content hash; `facts` is the file's FileFacts as JSON, `idents` its identifier
  // occurrences as `\nname:line,line…` (searched with instr()).
  (db) => {
    db.exec(`
      CREATE TABLE code_files (
        id           INTEGER PRIMARY KEY,
        root         TEXT NOT NULL,
        path         TEXT NOT NULL,
        hash         TEXT NOT NULL,
        size         INTEGER NOT NULL,
        mtime_ms     REAL NOT NULL,
        language     TEXT NOT NULL,
        kind         TEXT NOT NULL,
        parse_errors INTEGER NOT NULL,
        version      INTEGER NOT NULL,
        facts        TEXT NOT NULL,
        idents       TEXT NOT NULL,
        indexed_at   INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX code_files_by_path ON code_files(root, path);

      CREATE TABLE code_index_roots (
        root       TEXT PRIMARY KEY,
        built_at   INTEGER NOT NULL,
        file_count INTEGER NOT NULL,
        warning    TEXT
      ) WITHOUT ROWID;
    `)
  },
  // The restore journal (src/main/timetravel): written before an undo or rewind
  // touches a file and marked done in the transaction that records its event, so
  // a restore cut short by a crash is finished on the next start. `plan` is the
  // JSON list of files to write (path, blob hash, mode) and to delete.
  (db) => {
    db.exec(`
      CREATE TABLE restore_journal (
        id                INTEGER PRIMARY KEY,
        session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        root              TEXT NOT NULL,
        kind              TEXT NOT NULL,
        snapshot_id       INTEGER NOT NULL,
        saved_snapshot_id INTEGER NOT NULL,
        to_seq            INTEGER,
        plan              TEXT NOT NULL,
        state             TEXT NOT NULL,
        created_at        INTEGER NOT NULL,
        finished_at       INTEGER
      );
      CREATE INDEX restore_journal_pending ON restore_journal(root) WHERE state = 'pending';
    `)
  },
  // Soft delete: a deleted session leaves the lists at once and can be restored until the
  // core purges it (service/deletion.ts); NULL for a live session.
  (db) => {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN deleted_at INTEGER;
      CREATE INDEX sessions_deleted ON sessions(deleted_at) WHERE deleted_at IS NOT NULL;
    `)
  },
  // The code index's warm start lists its files, counts them and finds their problems
  // from this index alone (a few MB), never reading the rows, which their facts and
  // identifiers make big.
  (db) => {
    db.exec(
      'CREATE INDEX code_files_summary ON code_files(root, version, language, kind, parse_errors, size, path)',
    )
  },
  // Texts made from a whole code index (the repo map), each kept with the index
  // generation it was made from; the generation counts the index's changes.
  (db) => {
    db.exec(`
      ALTER TABLE code_index_roots ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE code_index_memos (
        root       TEXT NOT NULL,
        key        TEXT NOT NULL,
        generation INTEGER NOT NULL,
        value      TEXT NOT NULL,
        PRIMARY KEY (root, key)
      ) WITHOUT ROWID;
    `)
  },
  // A build checks every stored file's size and mtime against the disk, a page at a time
  // in path order: this index answers it without reading the rows.
  (db) => {
    db.exec('CREATE INDEX code_files_check ON code_files(root, path, size, mtime_ms, version)')
  },
  // Who runs a session's turn (store/liveness.ts): the host and pid that set it running and
  // the time that process last said it still was. A running row whose owner is gone reads as
  // interrupted.
  (db) => {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN owner_host TEXT;
      ALTER TABLE sessions ADD COLUMN owner_pid INTEGER;
      ALTER TABLE sessions ADD COLUMN heartbeat_at INTEGER;
    `)
  },
  // Approvals (shared/protocol/approval.ts): "always allow" rules, for a session (removed with it)
  // or for a project; the hashes of the rule files each session started with, so the next one can
  // name a file changed since; and the approvals already stored rewritten into the one subject shape
  // (by the protocol's own upgrade, which bundle import uses too).
  (db) => {
    db.exec(`
      CREATE TABLE approval_rules (
        id         INTEGER PRIMARY KEY,
        scope      TEXT NOT NULL CHECK (scope IN ('session', 'project')),
        session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
        project    TEXT NOT NULL,
        pattern    TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        CHECK ((scope = 'session') = (session_id IS NOT NULL))
      );
      CREATE INDEX approval_rules_by_project ON approval_rules(project, scope);
      CREATE TABLE rule_file_hashes (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        path       TEXT NOT NULL,
        hash       TEXT NOT NULL,
        PRIMARY KEY (session_id, path)
      ) WITHOUT ROWID;
    `)
    const rows = db
      .prepare<[], { session_id: string; seq: number; payload: string }>(
        "SELECT session_id, seq, payload FROM events WHERE type = 'approval.requested'",
      )
      .all()
    const update = db.prepare<[string, string, number]>(
      'UPDATE events SET payload = ? WHERE session_id = ? AND seq = ?',
    )
    for (const row of rows) {
      const payload: unknown = JSON.parse(row.payload)
      if (!isRecord(payload)) continue
      const upgraded = upgradeApprovalPayload(payload)
      if (upgraded !== payload) update.run(JSON.stringify(upgraded), row.session_id, row.seq)
    }
  },
]
