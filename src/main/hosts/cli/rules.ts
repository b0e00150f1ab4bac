import type { Command } from 'commander'
import { describeRule, ruleLabel } from '../../../shared/approval-rules'
import type { ApprovalRule, RulePattern } from '../../../shared/protocol'
import { checkCommand } from '../../policy/policy'
import type { Store } from '../../store/types'
import { resolveRepo } from './edit'
import { EXIT, UsageError } from './exit-codes'
import { dataDirOption, openCliStore } from './session-store'

/*
 * `stepwise rules list|add|remove`: the "always allow" rules (docs/cli.md#rules) — saved from an
 * approval ("always", for a chat or a project) or added here — each shown with what it matches.
 */

interface RuleOptions {
  repo?: string
  session?: string
  all?: boolean
  json?: boolean
  dataDir?: string
  mcp?: string
  exact?: boolean
}

function withStore<T>(opts: { dataDir?: string }, fn: (store: Store) => T): T {
  const store = openCliStore(opts.dataDir)
  try {
    return fn(store)
  } finally {
    store.close()
  }
}

function sessionOf(store: Store, idOrPrefix: string | undefined): string | undefined {
  if (idOrPrefix === undefined) return undefined
  const row = store.findSession(idOrPrefix)
  if (!row) throw new UsageError(`no session ${idOrPrefix} (see stepwise sessions list)`)
  return row.id
}

function printRule(rule: ApprovalRule): void {
  const where = rule.scope === 'session' ? `session ${rule.sessionId}` : 'project'
  process.stdout.write(
    `${rule.id}  ${ruleLabel(rule.pattern)}  (${where})\n    ${describeRule(rule.pattern)}\n`,
  )
}

function list(opts: RuleOptions): number {
  return withStore(opts, (store) => {
    const rules = opts.all
      ? store.approvals.listAllRules()
      : store.approvals.listRules(resolveRepo(opts.repo), sessionOf(store, opts.session))
    if (opts.json) {
      const out = rules.map((r) => ({ ...r, description: describeRule(r.pattern) }))
      process.stdout.write(`${JSON.stringify({ rules: out }, null, 2)}\n`)
      return EXIT.ok
    }
    if (rules.length === 0) process.stdout.write('No "always allow" rules.\n')
    let project: string | undefined
    for (const rule of rules) {
      if (opts.all && rule.project !== project) process.stdout.write(`${(project = rule.project)}\n`)
      printRule(rule)
    }
    return EXIT.ok
  })
}

async function patternFrom(words: string[], opts: RuleOptions, repo: string): Promise<RulePattern> {
  if (opts.mcp !== undefined) {
    const [server, tool, ...rest] = opts.mcp.split('/')
    if (!server || !tool || rest.length > 0 || words.length > 0)
      throw new UsageError('--mcp takes SERVER/TOOL (as `stepwise mcp list` shows) and no command words')
    return { kind: 'mcp', server, tool }
  }
  if (words.length === 0)
    throw new UsageError('name the command words to allow (e.g. `npm test`), or --mcp SERVER/TOOL')
  // A rule never makes a denied command run; one that could only match denied lines is a mistake.
  const verdict = await checkCommand(words.join(' '), {}, { root: repo })
  if (verdict.verdict === 'deny')
    throw new UsageError(`\`${words.join(' ')}\` is denied (${verdict.reason}); a rule cannot allow it`)
  return { kind: 'command', words, exact: opts.exact === true }
}

async function add(words: string[], opts: RuleOptions): Promise<number> {
  const repo = resolveRepo(opts.repo)
  const pattern = await patternFrom(words, opts, repo)
  return withStore(opts, (store) => {
    const sessionId = sessionOf(store, opts.session)
    const rule = store.approvals.addRule({
      scope: sessionId ? 'session' : 'project',
      project: repo,
      pattern,
      ...(sessionId ? { sessionId } : {}),
    })
    if (opts.json) process.stdout.write(`${JSON.stringify(rule)}\n`)
    else printRule(rule)
    return EXIT.ok
  })
}

function remove(id: string, opts: RuleOptions): number {
  const n = Number(id)
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`not a rule id: ${id} (see stepwise rules list)`)
  return withStore(opts, (store) => {
    const rule = store.approvals.getRule(n)
    if (!rule || !store.approvals.removeRule(n)) {
      process.stderr.write(`stepwise: no rule ${n} (see stepwise rules list --all)\n`)
      return EXIT.failed
    }
    process.stdout.write(`removed ${n}: ${ruleLabel(rule.pattern)}\n`)
    return EXIT.ok
  })
}

export function addRulesCommand(program: Command): void {
  const rules = program
    .command('rules')
    .description('"Always allow" rules: commands and MCP tools that run without asking')
  rules
    .command('list')
    .description("List a project's rules (and a session's), with what each matches")
    .option('--repo <dir>', 'the project folder (default: the current directory)')
    .option('--session <id>', "also that session's rules")
    .option('--all', 'every rule of every project and session')
    .option('--json', 'print the list as JSON')
    .addOption(dataDirOption())
    .action((opts: RuleOptions) => {
      process.exitCode = list(opts)
    })
  rules
    .command('add')
    .description('Allow a command by its leading words (e.g. `npm test`), or an MCP tool, without asking')
    .argument('[words...]', 'the words a command must start with')
    .option('--repo <dir>', 'the project folder (default: the current directory)')
    .option('--session <id>', 'for that session only (default: the whole project)')
    .option('--exact', 'only exactly these words, no further arguments')
    .option('--mcp <server/tool>', 'an MCP tool instead of a command')
    .option('--json', 'print the rule as JSON')
    .addOption(dataDirOption())
    .action(async (words: string[], opts: RuleOptions) => {
      process.exitCode = await add(words, opts)
    })
  rules
    .command('remove')
    .description('Remove a rule (its id is in `stepwise rules list`)')
    .argument('<id>', 'the rule id')
    .addOption(dataDirOption())
    .action((id: string, opts: RuleOptions) => {
      process.exitCode = remove(id, opts)
    })
}
