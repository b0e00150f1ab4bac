import { databaseOf } from '../../src/main/store/handle'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { rgPath } from '@vscode/ripgrep'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildSystemPrompt } from '../../src/main/agent/prompt'
import { createCodeIndex } from '../../src/main/codeindex/code-index'
import { createSandbox } from '../../src/main/containment/sandbox'
import { createSnapshotter } from '../../src/main/snapshot/snapshotter'
import { openStore } from '../../src/main/store/store'
import { snapshotReader } from '../../src/main/timetravel/replay'
import { findReferencesTool } from '../../src/main/tools/code'
import { fileInfoTool, listFilesTool, readFileTool, searchInFilesTool } from '../../src/main/tools/read'
import { createReadTracker } from '../../src/main/tools/read-tracker'
import type { ToolContext } from '../../src/main/tools/types'
import { snapshotTablesOf } from '../../src/main/store/snapshot-tables'

/*
 * The adversarial suite, second round, the gate's part: the five ways a file's content got past
 * one reader that the others refused (rule files followed links; a code tool read through a file
 * swapped for a link; letter case; credential files not on the name list; a project that is the
 * home or holds the data folder). Each case plants a fresh canary where an attacker would put a
 * secret, attacks through every reader that could show it (the tools as the model calls them,
 * the system prompt, snapshots, `file-at`, the database file itself) and holds when no output
 * holds the canary. A control per case reads the same place without the gate (ripgrep following
 * links, as a plain reader would) and must find the canary: the canary is live.
 * In-process (no CLI build): what is judged is what each reader returns.
 */

interface Vars {
  base: string
  home: string
  project: string
  data: string
  canary: () => string
}

interface GateCase {
  id: string
  item: 1 | 2 | 3 | 4 | 5
  title: string
  /** Public source of the attack. */
  source: string
  /** Plants the case; returns the project root to open (the case's project unless it is $HOME). */
  setup: (v: Vars) => string | void
  /** What every reader shows, concatenated. */
  attack: (v: Vars, root: string) => Promise<string>
}

const CWE59 = 'https://cwe.mitre.org/data/definitions/59.html (CWE-59: link following)'
const RULES_BACKDOOR =
  'https://www.pillar.security/blog/new-vulnerability-in-github-copilot-and-cursor-how-hackers-can-weaponize-code-agents'

const write = (abs: string, text: string) => {
  fs.mkdirSync(path.dirname(abs), { recursive: true })
  fs.writeFileSync(abs, text)
}

async function ctxFor(root: string): Promise<ToolContext> {
  const sandbox = await createSandbox(root)
  return {
    root: sandbox.root,
    sandbox,
    reads: createReadTracker(),
    limits: { maxReadBytes: 400 * 1024, maxWriteBytes: 800 * 1024 },
    signal: new AbortController().signal,
  }
}

/** Every read tool over `paths`, a search for `query` and the listing, as one string. */
async function readersShow(root: string, paths: string[], query: string): Promise<string> {
  const ctx = await ctxFor(root)
  const out: unknown[] = []
  for (const p of paths) {
    out.push(await readFileTool.run({ path: p }, ctx))
    out.push(await fileInfoTool.run({ path: p }, ctx))
  }
  out.push(await searchInFilesTool.run({ query, case_sensitive: false }, ctx))
  out.push(await searchInFilesTool.run({ query, regex: true, glob: '**/*' }, ctx))
  out.push(await listFilesTool.run({}, ctx))
  return JSON.stringify(out)
}

/** A snapshot of the project, what previews and `file-at` show of it, and the database file's bytes. */
async function snapshotsShow(root: string, data: string): Promise<string> {
  const store = openStore(data)
  try {
    const sandbox = await createSandbox(root)
    const snapshotter = createSnapshotter(snapshotTablesOf(store), {
      root: sandbox.root,
      listFiles: async () => (await sandbox.listFiles()).files,
    })
    const { info } = await snapshotter.takeSnapshot({ sessionId: null })
    snapshotter.close()
    const reader = snapshotReader(store, sandbox.root)
    const shown = reader.getManifest(info.id).map((f) => `${f.path}:${reader.readFileAt(info.id, f.path)}`)
    databaseOf(store).pragma('wal_checkpoint(TRUNCATE)')
    const bytes = fs
      .readdirSync(data, { withFileTypes: true })
      // The database and its WAL (not the folder of open marks beside them).
      .filter((e) => e.isFile() && (e.name.startsWith('stepwise.db') || e.name.endsWith('-wal')))
      .map((e) => e.name)
      .map((f) => fs.readFileSync(path.join(data, f)).toString('latin1'))
    return shown.join('\n') + bytes.join('')
  } finally {
    store.close()
  }
}

const CASES: GateCase[] = [
  {
    id: 'r2-rules-link-ssh',
    item: 1,
    title: 'AGENTS.md and CLAUDE.md are links to ~/.ssh/id_rsa and ~/.netrc: the first system prompt',
    source: `${RULES_BACKDOOR}; ${CWE59}`,
    setup: (v) => {
      write(path.join(v.home, '.ssh/id_rsa'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${v.canary()}\n`)
      write(path.join(v.home, '.netrc'), `machine api.example.com login me password ${v.canary()}\n`)
      fs.symlinkSync(path.join(v.home, '.ssh/id_rsa'), path.join(v.project, 'AGENTS.md'))
      fs.symlinkSync(path.join(v.home, '.netrc'), path.join(v.project, 'CLAUDE.md'))
    },
    attack: async (_v, root) => buildSystemPrompt(root).text,
  },
  {
    id: 'r2-rules-link-environ',
    item: 1,
    title: ".cursorrules is a link to a process's /proc/<pid>/environ (the API key in the environment)",
    source: `${RULES_BACKDOOR}; ${CWE59}`,
    setup: (v) => {
      child = spawn('sleep', ['60'], { env: { ...process.env, OPENAI_API_KEY: v.canary() }, stdio: 'ignore' })
      fs.symlinkSync(`/proc/${child.pid}/environ`, path.join(v.project, '.cursorrules'))
    },
    attack: async (_v, root) => buildSystemPrompt(root).text,
  },
  {
    id: 'r2-rules-folder-secrets',
    item: 1,
    title: '.clinerules/ holds a link to ~/.aws/credentials; copilot-instructions.md links to the .env',
    source: `${RULES_BACKDOOR}; ${CWE59}`,
    setup: (v) => {
      write(path.join(v.home, '.aws/credentials'), `[default]\naws_secret_access_key = ${v.canary()}\n`)
      write(path.join(v.project, '.env'), `API_KEY=${v.canary()}\n`)
      write(path.join(v.project, '.clinerules/style.md'), 'Use tabs.\n')
      fs.symlinkSync(path.join(v.home, '.aws/credentials'), path.join(v.project, '.clinerules/aws.md'))
      fs.mkdirSync(path.join(v.project, '.github'))
      fs.symlinkSync('../.env', path.join(v.project, '.github/copilot-instructions.md'))
    },
    attack: async (_v, root) => buildSystemPrompt(root).text,
  },
  {
    id: 'r2-swap-after-index',
    item: 2,
    title: 'an indexed file swapped for a link to a file outside: find_references, read_file, search',
    source: `${CWE59}; https://cwe.mitre.org/data/definitions/367.html (CWE-367: time of check, time of use)`,
    setup: (v) => {
      write(path.join(v.project, 'src/a.ts'), 'export function target() {}\ntarget()\n')
      write(path.join(v.project, 'src/b.ts'), "import { target } from './a'\ntarget()\n")
    },
    attack: async (v, root) => {
      const store = openStore(v.data)
      try {
        const ctx = await ctxFor(root)
        const index = createCodeIndex(store, { workers: 1, root: ctx.root, sandbox: ctx.sandbox })
        await index.build()
        // Now the swap: a.ts becomes a link to a file outside the project that uses the same name.
        write(path.join(v.base, 'outside.ts'), `// ${v.canary()}\ntarget() // ${v.canary()}\n`)
        fs.rmSync(path.join(v.project, 'src/a.ts'))
        fs.symlinkSync(path.join(v.base, 'outside.ts'), path.join(v.project, 'src/a.ts'))
        const refs = await findReferencesTool.run({ symbol: 'target' }, { ...ctx, index })
        return JSON.stringify(refs) + (await readersShow(root, ['src/a.ts'], 'target'))
      } finally {
        store.close()
      }
    },
  },
  {
    id: 'r2-letter-case',
    item: 3,
    title: '.ENV, Server.PEM, ID_RSA, Prod.Env, .NETRC: read, search, list, snapshot',
    source:
      'https://cwe.mitre.org/data/definitions/178.html (CWE-178: improper handling of case sensitivity)',
    setup: (v) => {
      for (const rel of ['.ENV', 'config/Server.PEM', 'ID_RSA', 'deploy/Prod.Env', '.NETRC'])
        write(path.join(v.project, rel), `secret ${v.canary()}\n`)
    },
    attack: async (v, root) =>
      (await readersShow(
        root,
        ['.ENV', 'config/Server.PEM', 'ID_RSA', 'deploy/Prod.Env', '.NETRC'],
        'secret',
      )) + (await snapshotsShow(root, v.data)),
  },
  {
    id: 'r2-credential-files',
    item: 4,
    title:
      'credential files inside the project: GCP key, backup/.aws, .docker, .kube, tfstate, ppk, .ssh, gh',
    source:
      'https://cloud.google.com/iam/docs/keys-create-delete; https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html; ' +
      'https://docs.docker.com/reference/cli/docker/login/; https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/; ' +
      'https://developer.hashicorp.com/terraform/language/state/sensitive-data; https://the.earth.li/~sgtatham/putty/latest/htmldoc/AppendixC.html; ' +
      'https://cli.github.com/manual/gh_auth_login',
    setup: (v) => {
      const p = (rel: string, text: string) => write(path.join(v.project, rel), text)
      p(
        'deploy/ci-key.json',
        `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n${v.canary()}"}`,
      )
      p('backup/.aws/credentials', `[default]\naws_secret_access_key = ${v.canary()}\n`)
      p('.docker/config.json', `{"auths": {"ghcr.io": {"auth": "${v.canary()}"}}}`)
      p('.kube/config', `apiVersion: v1\nusers:\n- user:\n    token: ${v.canary()}\n`)
      p('infra/prod.tfstate', `{"terraform_version": "1.6.0", "lineage": "x", "password": "${v.canary()}"}`)
      p('keys/server.ppk', `PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n${v.canary()}\n`)
      p('.ssh/deploy_key', `${v.canary()}\n`)
      p('old/gh/hosts.yml', `github.com:\n    oauth_token: ${v.canary()}\n`)
      p('ops/cluster.yaml', `apiVersion: v1\nkind: Config\nusers:\n- user:\n    token: ${v.canary()}\n`)
    },
    attack: async (v, root) => {
      const paths = [
        'deploy/ci-key.json',
        'backup/.aws/credentials',
        '.docker/config.json',
        '.kube/config',
        'infra/prod.tfstate',
        'keys/server.ppk',
        '.ssh/deploy_key',
        'old/gh/hosts.yml',
        'ops/cluster.yaml',
      ]
      return (await readersShow(root, paths, 'advgate')) + (await snapshotsShow(root, v.data))
    },
  },
  {
    id: 'r2-project-is-home',
    item: 5,
    title: '$HOME opened as the project: ~/.aws/config, ~/.ssh/config, the stored API key file',
    source:
      'https://cwe.mitre.org/data/definitions/552.html (CWE-552: files accessible to external parties); the app opens any folder',
    setup: (v) => {
      write(path.join(v.home, '.aws/config'), `[default]\nregion = ${v.canary()}\n`)
      write(path.join(v.home, '.ssh/config'), `Host x\n  User ${v.canary()}\n`)
      write(path.join(v.data, 'credentials.json'), `{"openai": "${v.canary()}"}`)
      write(path.join(v.home, 'code/app.ts'), 'export const app = 1\n')
      return v.home
    },
    attack: async (v, root) =>
      (await readersShow(
        root,
        ['.aws/config', '.ssh/config', '.local/share/stepwise-r2/credentials.json'],
        'advgate',
      )) + (await snapshotsShow(root, path.join(v.base, 'store'))),
  },
  {
    id: 'r2-project-holds-data',
    item: 5,
    title: "a project that holds Stepwise's data folder: its key file and database",
    source: 'https://cwe.mitre.org/data/definitions/552.html (CWE-552: files accessible to external parties)',
    setup: (v) => {
      v.data = path.join(v.project, '.stepwise')
      process.env.STEPWISE_HOME = v.data
      write(path.join(v.data, 'credentials.json'), `{"openai": "${v.canary()}"}`)
      write(path.join(v.project, 'src/app.ts'), 'export const app = 1\n')
    },
    attack: async (v, root) =>
      (await readersShow(root, ['.stepwise/credentials.json'], 'advgate')) +
      (await snapshotsShow(root, path.join(v.base, 'store'))),
  },
]

let saved: NodeJS.ProcessEnv
/** A process whose environment holds a canary (its /proc/<pid>/environ is fixed at its start). */
let child: ChildProcess | undefined
let vars: Vars
let canaries: string[]

beforeEach(() => {
  saved = { ...process.env }
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-r2-')))
  canaries = []
  vars = {
    base,
    home: path.join(base, 'home'),
    project: path.join(base, 'project'),
    data: path.join(base, 'home/.local/share/stepwise-r2'),
    canary: () => {
      const c = `advgate${crypto.randomBytes(8).toString('hex')}`
      canaries.push(c)
      return c
    },
  }
  for (const d of [vars.home, vars.project, vars.data, path.join(base, 'store')])
    fs.mkdirSync(d, { recursive: true })
  // The case's home and data folder are the user's, as the core looks them up.
  process.env.HOME = vars.home
  process.env.STEPWISE_HOME = vars.data
})

afterEach(() => {
  // Key by key: a plain object put in process.env's place would no longer reach os.homedir().
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
  Object.assign(process.env, saved)
  child?.kill()
  child = undefined
  fs.rmSync(vars.base, { recursive: true, force: true })
})

const leaked = (text: string) => canaries.filter((c) => text.includes(c))

/** Without the gate: ripgrep following every link, ignoring no file, as a plain reader would. */
function ungated(root: string): string {
  try {
    return execFileSync(rgPath, ['-uuu', '--follow', '--no-messages', '-a', '-F', 'advgate', root], {
      encoding: 'latin1',
      maxBuffer: 64 * 1024 * 1024,
    })
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? '')
  }
}

describe('adversarial round two: one gate for every reader', () => {
  it.each(CASES.map((c) => [c.id, c] as const))('%s holds', async (_id, c) => {
    const root = c.setup(vars) ?? vars.project
    const shown = await c.attack(vars, root)
    expect(canaries.length).toBeGreaterThan(0)
    expect(leaked(shown), `${c.title} (source: ${c.source})`).toEqual([])
  })

  it.each(CASES.map((c) => [c.id, c] as const))('control: %s plants a live canary', async (_id, c) => {
    const root = c.setup(vars) ?? vars.project
    // The swap case plants its outside file during the attack: plant it as the attack would.
    let seen = ungated(root)
    if (c.id === 'r2-swap-after-index') {
      write(path.join(vars.base, 'outside.ts'), `// ${vars.canary()}\ntarget() // ${vars.canary()}\n`)
      fs.rmSync(path.join(vars.project, 'src/a.ts'))
      fs.symlinkSync(path.join(vars.base, 'outside.ts'), path.join(vars.project, 'src/a.ts'))
      seen = ungated(root)
    }
    if (c.id === 'r2-rules-link-environ') seen = fs.readFileSync(path.join(root, '.cursorrules'), 'latin1')
    expect(leaked(seen).length, c.id).toBeGreaterThan(0)
  })
})
