import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline/promises'
import pc from 'picocolors'
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../agent/approvals'
import { inertDeep, inertText } from '../../../shared/terminalText'

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

/**
 * `ask` in a terminal: shows the coloured diff and takes
 * y(es) / n(o, with an optional reason) / e(dit in $EDITOR) / a(lways for this session).
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
      if (request.kind === 'conflict') return askConflict(request, opts, color, signal)
      const change = request.kind === 'file' ? request.change : null
      // What is shown is inert (a command or diff could hide text from the one approving it);
      // what is edited and answered is the request itself.
      const shown = inertDeep(request)
      if (shown.kind === 'file') {
        opts.output.write(
          `\n${color.bold(`${shown.tool}: ${shown.change.kind} ${shown.change.path}`)}\n${colorDiff(shown.diff.trimEnd(), color)}\n`,
        )
      } else if (shown.kind === 'action') {
        const { plan } = shown
        const where = plan.command ? `\n  in ${plan.command.cwd}` : ''
        const why = plan.reason ? `\n  ${color.dim(plan.reason)}` : ''
        opts.output.write(
          `\n${color.bold(`${shown.tool}:`)} ${plan.command ? color.cyan(plan.command.command) : plan.summary}${where}${why}\n`,
        )
      }
      const choices = change ? `[${color.cyan('e')}]dit [a]lways` : '[a]lways'
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
          if (answer === 'a' || answer === 'always') return { decision: 'always' }
          if (answer === 'n' || answer === 'no') {
            const reason = (await rl.question('Reason for the model (optional): ', { signal })).trim()
            return reason ? { decision: 'reject', reason } : { decision: 'reject' }
          }
          if ((answer === 'e' || answer === 'edit') && change) {
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
            return { decision: 'edited', content: edited }
          }
          opts.output.write(change ? 'Please answer y, n, e or a.\n' : 'Please answer y, n or a.\n')
        }
      } finally {
        rl.close()
      }
    },
  }
}

/** An approved change whose file changed on disk meanwhile: apply anyway, skip, or let the model redo it. */
async function askConflict(
  request: Extract<ApprovalRequest, { kind: 'conflict' }>,
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
