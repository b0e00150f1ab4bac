import { rulePatternSchema, type ApprovalRule, type RulePattern, type RuleScope } from '../../shared/protocol'
import type { SqliteDatabase } from './sqlite'

/**
 * The store's approval records (schema: `approval_rules`, `rule_file_hashes`): the "always allow"
 * rules of sessions and projects, and the hashes of the rule files each session started with.
 */
export interface ApprovalStore {
  /** Saves a rule (an equal one in the same place is returned instead of a copy). */
  addRule(input: {
    scope: RuleScope
    project: string
    sessionId?: string
    pattern: RulePattern
  }): ApprovalRule
  /** The project's rules and, with `sessionId`, that session's, oldest first. */
  listRules(project: string, sessionId?: string): ApprovalRule[]
  /** Every rule, for `stepwise rules list --all`. */
  listAllRules(): ApprovalRule[]
  getRule(id: number): ApprovalRule | undefined
  removeRule(id: number): boolean
  recordRuleFiles(sessionId: string, hashes: ReadonlyMap<string, string>): void
  /** The newest earlier session of the project that recorded rule-file hashes, with them. */
  lastRuleFiles(
    project: string,
    beforeSession: string,
  ): { sessionId: string; hashes: Map<string, string> } | undefined
}

interface RuleRecord {
  id: number
  /** The table's CHECK holds it to 'session' or 'project'. */
  scope: RuleScope
  session_id: string | null
  project: string
  pattern: string
  created_at: number
}

function toRule(r: RuleRecord): ApprovalRule | undefined {
  let pattern: RulePattern
  try {
    pattern = rulePatternSchema.parse(JSON.parse(r.pattern))
  } catch {
    return undefined // written by a newer version: not applied, not shown
  }
  return {
    id: r.id,
    scope: r.scope,
    ...(r.session_id ? { sessionId: r.session_id } : {}),
    project: r.project,
    pattern,
    createdAt: r.created_at,
  }
}

const COLUMNS = 'id, scope, session_id, project, pattern, created_at'

export function createApprovalStore(db: SqliteDatabase, now: () => number = Date.now): ApprovalStore {
  const stmt = {
    insert: db.prepare<[string, string | null, string, string, number], { id: number }>(
      'INSERT INTO approval_rules (scope, session_id, project, pattern, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
    ),
    find: db.prepare<[string, string | null, string, string], RuleRecord>(
      `SELECT ${COLUMNS} FROM approval_rules WHERE scope = ? AND session_id IS ? AND project = ? AND pattern = ?`,
    ),
    list: db.prepare<[string, string | null], RuleRecord>(
      `SELECT ${COLUMNS} FROM approval_rules
       WHERE project = ? AND (scope = 'project' OR session_id = ?) ORDER BY id`,
    ),
    all: db.prepare<[], RuleRecord>(`SELECT ${COLUMNS} FROM approval_rules ORDER BY project, id`),
    get: db.prepare<[number], RuleRecord>(`SELECT ${COLUMNS} FROM approval_rules WHERE id = ?`),
    remove: db.prepare<[number]>('DELETE FROM approval_rules WHERE id = ?'),
    clearHashes: db.prepare<[string]>('DELETE FROM rule_file_hashes WHERE session_id = ?'),
    insertHash: db.prepare<[string, string, string]>(
      'INSERT INTO rule_file_hashes (session_id, path, hash) VALUES (?, ?, ?)',
    ),
    // A session with no rule file records one row with an empty path, so "none" compares too.
    lastHashed: db.prepare<[string, string], { session_id: string }>(
      `SELECT s.id AS session_id FROM sessions s
       WHERE s.repo = ? AND s.id <> ? AND EXISTS (SELECT 1 FROM rule_file_hashes h WHERE h.session_id = s.id)
       ORDER BY s.created_at DESC, s.id DESC LIMIT 1`,
    ),
    hashes: db.prepare<[string], { path: string; hash: string }>(
      'SELECT path, hash FROM rule_file_hashes WHERE session_id = ?',
    ),
  }
  const recordTx = db.transaction((sessionId: string, hashes: ReadonlyMap<string, string>) => {
    stmt.clearHashes.run(sessionId)
    if (hashes.size === 0) stmt.insertHash.run(sessionId, '', '')
    for (const [p, h] of hashes) stmt.insertHash.run(sessionId, p, h)
  })
  const rules = (rows: RuleRecord[]): ApprovalRule[] => rows.flatMap((r) => toRule(r) ?? [])

  return {
    addRule({ scope, project, sessionId, pattern }) {
      const session = scope === 'session' ? (sessionId ?? null) : null
      if (scope === 'session' && !session) throw new Error('addRule: a session rule needs its session id')
      const text = JSON.stringify(rulePatternSchema.parse(pattern))
      const existing = stmt.find.get(scope, session, project, text)
      if (existing) return toRule(existing)!
      const { id } = stmt.insert.get(scope, session, project, text, now())!
      return toRule(stmt.get.get(id)!)!
    },
    listRules(project, sessionId) {
      return rules(stmt.list.all(project, sessionId ?? null))
    },
    listAllRules() {
      return rules(stmt.all.all())
    },
    getRule(id) {
      const row = stmt.get.get(id)
      return row ? toRule(row) : undefined
    },
    removeRule(id) {
      return stmt.remove.run(id).changes > 0
    },
    recordRuleFiles(sessionId, hashes) {
      recordTx(sessionId, hashes)
    },
    lastRuleFiles(project, beforeSession) {
      const row = stmt.lastHashed.get(project, beforeSession)
      if (!row) return undefined
      const hashes = new Map<string, string>()
      for (const h of stmt.hashes.all(row.session_id)) if (h.path !== '') hashes.set(h.path, h.hash)
      return { sessionId: row.session_id, hashes }
    },
  }
}
