// The `stepwise` CLI program, loaded by entry.ts (built to out/main/cli.js, run with plain Node).
// The contract scripts depend on is documented in docs/cli.md.
import path from 'node:path'
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import { APPROVAL_POLICIES } from '../../../shared/protocol'
import { shutdownLiveTraces } from '../../telemetry/live'
import { VERSION } from '../../version'
import {
  firstTokenTimeoutOption,
  idleTimeoutOption,
  maxOutputTokensOption,
  numCtxOption,
  runEdit,
  temperatureOption,
  type EditOptions,
} from './edit'
import { addContinueCommand, runContinue } from './continue'
import { addForkReplayCommands } from './fork-replay'
import { addIndexCommand } from './index-command'
import { addReviewCommand } from './review'
import { addServeCommand } from './serve'
import { addUndoRewindCommands } from './timetravel'
import { addImportCommand } from './bundle'
import { addManageCommands } from './manage'
import { addCompactCommand } from './compact'
import { addMcpCommand } from './mcp'
import { addRulesCommand } from './rules'
import { mcpConfigOption } from './mcp-start'
import { dataDirOption } from './session-store'
import { exportSession, listSessions, showSession } from './sessions'
import { EXIT, UsageError } from './exit-codes'
import { inertText } from '../../../shared/terminalText'
import { explainStoreError } from '../../store/failures'
import { addDoctorCommand } from './doctor'
import { DEFAULT_MAX_TOOL_CALLS } from '../../agent/loop'
import { loadProgramDotenv } from '../../config/dotenv'
import { providerIds } from '../../../shared/providers'
import { errorMessage } from '../../../shared/errors'

function positiveInt(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number.')
  return n
}

const repoOption = (what: string) => new Option('--repo <dir>', what)

export function buildProgram(): Command {
  const program = new Command()
    .name('stepwise')
    .description(
      'A coding agent you can see and steer. Every step is recorded; every change waits for your approval.',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    // Model settings from the .env beside stepwise (never the project's own: config/dotenv.ts).
    .hook('preAction', (_program, action) => {
      const repo = (action.opts() as { repo?: unknown }).repo
      loadProgramDotenv(process.env, path.resolve(typeof repo === 'string' ? repo : process.cwd()))
    })

  addEditCommand(program)
  addReviewCommand(program)
  addIndexCommand(program)
  addServeCommand(program)
  addMcpCommand(program)
  addRulesCommand(program)
  addDoctorCommand(program)
  addSessionsCommands(program)
  return program
}

/** `stepwise edit "task"`: a new session on the task, or with --resume the next message of a stored one. */
function addEditCommand(program: Command): void {
  program
    .command('edit')
    .description('Run the agent on a task in a project folder')
    .argument('<task...>', 'what the agent should do, in plain words (quotes optional)')
    .addOption(repoOption('the project folder (default: the current directory)'))
    .addOption(new Option('--provider <provider>', 'model provider').choices(providerIds()))
    .option('--model <name>', 'model name (e.g. gpt-4.1-mini, qwen2.5-coder:7b)')
    .option(
      '--base-url <url>',
      'model server URL (default: $OPENAI_BASE_URL or $OLLAMA_HOST, else the provider default)',
    )
    .addOption(numCtxOption())
    .addOption(temperatureOption())
    .addOption(firstTokenTimeoutOption())
    .addOption(idleTimeoutOption())
    .addOption(maxOutputTokensOption())
    .addOption(
      new Option('--approve <policy>', 'approval policy for changes')
        .choices(APPROVAL_POLICIES)
        .default('ask'),
    )
    .addOption(
      new Option('--max-steps <n>', 'most model turns before stopping').argParser(positiveInt).default(50),
    )
    .addOption(
      new Option('--max-tool-calls <n>', 'most tool calls before stopping')
        .argParser(positiveInt)
        .default(DEFAULT_MAX_TOOL_CALLS),
    )
    .option('--until-green', 'when the model says it is done, run build and tests and send failures back')
    .addOption(
      new Option('--max-repairs <n>', 'most repair rounds with --until-green')
        .argParser(positiveInt)
        .default(15),
    )
    .option('--json', 'print every event as one JSON line on stdout')
    .option(
      '--resume <id>',
      'continue this stored chat with the task as its next message (as sessions continue)',
    )
    .option(
      '--allow-unsandboxed',
      'where the OS sandbox (bubblewrap) cannot run, run commands unconfined instead of refusing them',
    )
    .addOption(mcpConfigOption())
    .addOption(dataDirOption())
    .action(async (words: string[], opts: EditOptions) => {
      // `stepwise edit fix the failing test` reads as one task, like its quoted form.
      const task = words.join(' ')
      // --resume: the chat's next message, through the app's turn path (continue.ts).
      process.exitCode = opts.resume ? await runContinue(opts.resume, task, opts) : await runEdit(task, opts)
    })
}

/** `stepwise sessions …`: list, show and export here; the other subcommands from their own modules. */
function addSessionsCommands(program: Command): void {
  const sessions = program
    .command('sessions')
    .description(
      'List, show, export, import, undo, rewind, fork, replay, compact, rename and delete stored sessions',
    )
  sessions
    .command('list')
    .description('List sessions, newest first')
    .addOption(repoOption('only sessions of this project folder'))
    .option('--json', 'print the list as JSON')
    .addOption(dataDirOption())
    .action((opts) => {
      process.exitCode = listSessions(opts)
    })
  sessions
    .command('show')
    .description('Show one session step by step (the seq of each event in brackets)')
    .argument('<id>', 'session id (a unique prefix is enough)')
    .addOption(dataDirOption())
    .action((id: string, opts) => {
      process.exitCode = showSession(id, opts)
    })
  sessions
    .command('export')
    .description(
      'Export a session: json (events), md (transcript), diff (net change), raw (model traffic), otlp (OpenTelemetry trace)',
    )
    .argument('<id>', 'session id (a unique prefix is enough)')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['json', 'md', 'diff', 'raw', 'bundle', 'otlp'])
        .default('json'),
    )
    .option(
      '--include-content',
      'otlp: add prompts, answers, tool arguments and results (off: no file content)',
    )
    .option('--out <file>', 'write to this file instead of stdout (bundle: default <id>.stepwise)')
    .addOption(dataDirOption())
    .action(async (id: string, opts) => {
      process.exitCode = await exportSession(id, opts)
    })
  addImportCommand(sessions)
  addUndoRewindCommands(sessions)
  addForkReplayCommands(sessions)
  addContinueCommand(sessions)
  addManageCommands(sessions)
  addCompactCommand(sessions)
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram()
  if (argv.length <= 2) {
    program.outputHelp()
    return EXIT.usage
  }
  try {
    await program.parseAsync(argv)
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      ) {
        return EXIT.ok
      }
      return EXIT.usage
    }
    if (err instanceof UsageError) {
      process.stderr.write(`stepwise: ${inertText(err.message)}\n`)
      return EXIT.usage
    }
    const explained = explainStoreError(err)
    process.stderr.write(`stepwise: ${inertText(errorMessage(explained))}\n`)
    return EXIT.failed
  }
}

// Output piped into `head` or a pager that quits early: the reader is gone, so stop quietly, as
// Unix tools do, instead of dying on an unhandled EPIPE (exit 0, nothing on stderr).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok)
    throw err
  })
}

main(process.argv)
  .then(
    (code) => {
      process.exitCode = code
    },
    (err: unknown) => {
      process.stderr.write(`stepwise: ${inertText(String(err))}\n`)
      process.exitCode = EXIT.failed
    },
  )
  // Live traces (docs/traces.md): the last spans go out, but a collector that does not
  // answer in time must not hold the shell; its request is dropped with the process.
  .then(() => shutdownLiveTraces())
  .then((sent) => {
    if (!sent) process.exit()
  })
