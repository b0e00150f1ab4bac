import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline/promises'
import pc from 'picocolors'
import { describeRule, ruleLabel } from '../../../shared/approval-rules'
import type { SubjectOf } from '../../../shared/protocol'
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../agent/approvals'
import { inertDeep, inertText } from '../../../shared/terminalText'
import { mcpHintPhrases } from '../../../shared/mcp-hints'
import { describeCall } from '../../mcp/tools'

type Colors = ReturnType<typeof pc.createColors>

export function colorDiff(diff: string, color: Colors = pc): string {
  return diff
    .split('\n')
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---')) return color.bold(line)
      if (line.startsWith('+')) return color.green(line)
      if (line.startsWith('-')) return color.red(line)
      if (line.startsWith('@@')) return color.cyan(line)
      return line
    })
    .join('\n')
}

/** Opens `content` in $VISUAL / $EDITOR and returns what the user saved, or null if the editor failed. */
export function editInEditor(content: string, fileName: string, env = process.env): string | null {
  const editor = env.VISUAL || env.EDITOR || 'vi'
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-edit-'))
  const file = path.join(dir, path.basename(fileName))
  try {
    fs.writeFileSync(file, content)
    // The editor string may carry flags (`code --wait`): let the shell split it.
    const result = spawnSync(`${editor} "${file}"`, { stdio: 'inherit', shell: true })
    if (result.status !== 0) return null
    return fs.readFileSync(file, 'utf8')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** What the prompt shows above the question, per subject. */
function describeRequest(request: ApprovalRequest, color: Colors): string {
  const { subject, tool } = request
  switch (subject.kind) {
    case 'file': {
      const warn = subject.agentFile
        ? `\n${color.yellow(`${subject.path} instructs agents or other tools: read it as you would a script.`)}`
        : ''
      return `\n${color.bold(`${tool}: ${subject.change} ${subject.path}`)}${warn}\n${colorDiff(subject.diff.trimEnd(), color)}\n`
    }
    case 'command': {
      const why = request.why ? `\n  ${color.dim(request.why)}` : ''
      return `\n${color.bold(`${tool}:`)} ${color.cyan(subject.command)}\n  in ${subject.cwd}${why}\n`
    }
    case 'mcp': {
      const notes = mcpHintPhrases(subject).map((p) => (p.warn ? color.yellow(p.text) : p.text))
      const said = notes.length ? `\n  the server says: ${notes.join('; ')}` : ''
      return `\n${color.bold(`${tool}:`)} ${describeCall(subject.server, subject.tool, subject.args)}${said}\n`
    }
    case 'conflict':
      return ''
  }
}

/**
 * `ask` in a terminal: shows the coloured diff, the command or the MCP call and takes
 * y(es) / n(o, with an optional reason) / e(dit in $EDITOR) / a(lways: for a file change, every
 * file change of this session; for a command or MCP tool, the offered rule for this session) /
 * p(roject: the offered rule for this project).
 */
export function terminalApprover(opts: {
  input: NodeJS.ReadStream
  output: NodeJS.WriteStream
  beforePrompt?: () => void
}): Approver {
  const color = opts.output.isTTY ? pc : pc.createColors(false)
  return {
    async requestApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      opts.beforePrompt?.()
      const { subject } = request
      if (subject.kind === 'conflict') return askConflict(subject, opts, color, signal)
      // What is shown is inert (a command or diff could hide text from the one approving it);
      // what is edited and answered is the request itself.
      opts.output.write(describeRequest(inertDeep(request), color))
      const change = subject.kind === 'file' ? subject : null
      // "Always" for a file change never covers agent files, which ask every time.
      const always = change ? !change.agentFile : request.rule !== undefined
      if (request.rule)
        opts.output.write(
          color.dim(`  always allow: ${ruleLabel(request.rule)} — ${describeRule(request.rule)}\n`),
        )
      const choices = [
        change ? `[${color.cyan('e')}]dit` : '',
        always ? '[a]lways' : '',
        request.rule ? '[p]roject' : '',
      ]
        .filter(Boolean)
        .join(' ')
      const letters = ['y', 'n', change && 'e', always && 'a', request.rule && 'p'].filter(Boolean)
      const keys = `${letters.slice(0, -1).join(', ')} or ${letters.at(-1)}`
      const rl = readline.createInterface({ input: opts.input, output: opts.output, terminal: true })
      try {
        for (;;) {
          const answer = (
            await rl.question(
              `${color.bold(change ? 'Apply?' : 'Run?')} [${color.green('y')}]es [${color.red('n')}]o ${choices}: `,
              { signal },
            )
          )
            .trim()
            .toLowerCase()
          if (answer === 'y' || answer === 'yes') return { decision: 'accept' }
          if (always && (answer === 'a' || answer === 'always'))
            return { decision: 'always', scope: 'session' }
          if (request.rule && (answer === 'p' || answer === 'project'))
            return { decision: 'always', scope: 'project' }
          if (answer === 'n' || answer === 'no') {
            const reason = (await rl.question('Reason for the model (optional): ', { signal })).trim()
            return reason ? { decision: 'reject', reason } : { decision: 'reject' }
          }
          if ((answer === 'e' || answer === 'edit') && change) {
            if (change.summarised) {
              opts.output.write('This change is too large to show in full or edit; answer y or n.\n')
              continue
            }
            if (change.after === null) {
              opts.output.write('A deletion has nothing to edit; answer y or n.\n')
              continue
            }
            rl.pause()
            const edited = editInEditor(change.after, change.path)
            rl.resume()
            if (edited === null) {
              opts.output.write(color.yellow('The editor exited with an error; the proposal is unchanged.\n'))
              continue
            }
            return { decision: 'edited', editedContent: edited }
          }
          opts.output.write(`Please answer ${keys}.\n`)
        }
      } finally {
        rl.close()
      }
    },
  }
}

/** An approved change whose file changed on disk meanwhile: apply anyway, skip, or let the model redo it. */
async function askConflict(
  request: SubjectOf<'conflict'>,
  opts: { input: NodeJS.ReadStream; output: NodeJS.WriteStream },
  color: ReturnType<typeof pc.createColors>,
  signal: AbortSignal,
): Promise<ApprovalAnswer> {
  opts.output.write(
    `\n${color.yellow(`${inertText(request.path)} changed on disk while the change waited.`)}\n`,
  )
  const rl = readline.createInterface({ input: opts.input, output: opts.output, terminal: true })
  try {
    for (;;) {
      const answer = (
        await rl.question(`[${color.green('a')}]pply anyway [${color.red('s')}]kip [r]egenerate: `, {
          signal,
        })
      )
        .trim()
        .toLowerCase()
      if (answer === 'a' || answer === 'apply') return { decision: 'accept' }
      if (answer === 's' || answer === 'skip') return { decision: 'reject' }
      if (answer === 'r' || answer === 'regenerate') return { decision: 'regenerate' }
      opts.output.write('Please answer a, s or r.\n')
    }
  } finally {
    rl.close()
  }
}
