import { databaseOf } from '../src/main/store/handle'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createSandbox } from '../src/main/containment/sandbox'
import { encodeBlob } from '../src/main/snapshot/blobs'
import { encodeManifest } from '../src/main/snapshot/manifest'
import { snapshotterFor } from '../src/main/session/start'
import { openStore } from '../src/main/store/store'
import { rewindSession, undoSession } from '../src/main/timetravel/restore'
import { recordSession } from '../src/main/timetravel/restore-testing'
import { ensureTree } from './tree'
import { CLI } from './ui-host'
import { isMain, log, MB, median, report, timed, type BenchRow } from './util'

/*
 * Rewind and undo on the 50,000-file tree (a copy of it: they change files): a
 * session whose one checkpoint changed 100 files, rewound to its start and undone
 * in turns — each including the checkpoint of the present that every restore
 * takes first — against `git stash` / `git stash pop` of the same 100 changes in
 * a git repository of the same copy (GIT_DIR outside the tree), alternating.
 *
 * In one process, as in the app: the session's snapshotter watches the tree for
 * file events, so the checkpoint of the present re-captures the files events
 * name. The same restores from the built CLI, a new process each (every file
 * listed and stat'ed), are reported too, for information.
 */

const CHANGED = 100
/** Files a command changes before its checkpoint. */
const COMMAND_TOUCHED = 10
const ROUNDS = 5

export async function benchTimetravel(): Promise<BenchRow[]> {
  const tree = ensureTree()
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-timetravel-'))
  const root = path.join(work, 'tree')
  try {
    execFileSync('cp', ['-a', tree.root, root])
    const gitEnv = {
      ...process.env,
      GIT_DIR: path.join(work, 'git'),
      GIT_WORK_TREE: root,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@example.com',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@example.com',
    }
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: root,
        env: gitEnv,
        maxBuffer: 1 << 30,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    git('init', '-q')
    git('add', '-A')
    git('commit', '-qm', 'tree')
    git('status', '--porcelain')

    const store = openStore(path.join(work, 'data'))
    const s = await recordSession(store, root)
    const listed = git('ls-files').toString().trim().split('\n')
    const step = Math.floor(listed.length / CHANGED)
    const picked = Array.from({ length: CHANGED }, (_, i) => listed[i * step])
    const edits = Object.fromEntries(
      picked.map((p) => [p, fs.readFileSync(path.join(root, p), 'utf8') + '\n// changed by the bench\n']),
    )
    await s.change(edits)
    store.setSessionStatus(s.sessionId, 'done')
    git('status', '--porcelain')
    log(`tree: ${listed.length} files; ${CHANGED} changed by one checkpoint`)

    const rewinds: number[] = []
    const undos: number[] = []
    const stashes: number[] = []
    const pops: number[] = []
    const expectRestored = (o: { status: string }) => {
      if (o.status !== 'restored') throw new Error(`restore did not happen: ${JSON.stringify(o)}`)
    }
    // One untimed round first (page cache, JIT), then alternating rounds.
    for (let round = 0; round <= ROUNDS; round++) {
      const r = await timed(() => rewindSession(store, s.sessionId, s.startedSeq))
      expectRestored(r.value)
      const u = await timed(() => undoSession(store, s.sessionId))
      expectRestored(u.value)
      const st = await timed(() => git('stash', '-q'))
      const po = await timed(() => git('stash', 'pop', '-q'))
      if (round === 0) continue
      rewinds.push(r.seconds)
      undos.push(u.seconds)
      stashes.push(st.seconds)
      pops.push(po.seconds)
    }
    if (fs.readFileSync(path.join(root, picked[0]), 'utf8') !== edits[picked[0]])
      throw new Error('the rounds did not end at the changed state')

    // A command that touched 10 files, then the checkpoint the agent takes after every command
    // (the session's warm snapshotter), against `git stash create` of the same worktree: a commit
    // of the changes that leaves the files alone, which is what a checkpoint is.
    const sandbox = await createSandbox(root)
    const snapshotter = snapshotterFor(store, sandbox)
    const before = await snapshotter.takeSnapshot({ sessionId: s.sessionId })
    // Files the snapshots cover (not .env, not node_modules: the sandbox leaves those out).
    const covered = new Set(snapshotter.getManifest(before.info.id).map((f) => f.path))
    const touched = picked.filter((p) => covered.has(p)).slice(0, COMMAND_TOUCHED)
    const checkpoints: number[] = []
    const stashCreates: number[] = []
    const growth: number[] = []
    const storeBytes = () =>
      databaseOf(store).prepare<[], number>('SELECT coalesce(sum(length(data)), 0) FROM blobs').pluck().get()!
    for (let round = 0; round <= ROUNDS; round++) {
      for (const p of touched) fs.appendFileSync(path.join(root, p), `// command round ${round}\n`)
      const bytesBefore = storeBytes()
      const c = await timed(() =>
        snapshotter.takeSnapshot({ sessionId: s.sessionId, label: `round ${round}` }),
      )
      growth.push(storeBytes() - bytesBefore)
      const changed = c.value.changed.modified.length
      if (changed !== COMMAND_TOUCHED) throw new Error(`the checkpoint saw ${changed} changed files, not 10`)
      if (round > 0 && c.value.how !== 'events')
        throw new Error(`the checkpoint took the ${c.value.how} path`)
      const g = await timed(() => git('stash', 'create'))
      if (round === 0) continue
      checkpoints.push(c.seconds)
      stashCreates.push(g.seconds)
    }
    // What one checkpoint added to the store, against a whole manifest of the tree (as stored before deltas).
    const whole = encodeBlob(encodeManifest(snapshotter.getManifest(before.info.id))).data.length
    store.close()
    const where = `${listed.length} files, ${CHANGED} changed, median of ${ROUNDS}`
    const cold = coldRows(s.sessionId, s.startedSeq, path.join(work, 'data'), git, where)
    return [
      {
        name: `rewind: ${CHANGED} changed files`,
        unit: 's',
        ours: median(rewinds),
        refName: 'git stash',
        reference: median(stashes),
        target: { maxAbs: 1 },
        note: `${where}; includes the checkpoint of the present`,
      },
      {
        name: `undo: ${CHANGED} files back`,
        unit: 's',
        ours: median(undos),
        refName: 'git stash pop',
        reference: median(pops),
        target: { maxAbs: 0.2 },
        note: `${where}; includes the checkpoint of the present`,
      },
      {
        name: `checkpoint after a command touched ${COMMAND_TOUCHED} files`,
        unit: 's',
        ours: median(checkpoints),
        refName: 'git stash create',
        reference: median(stashCreates),
        target: { maxAbs: 0.5 },
        note: `${listed.length} files, median of ${ROUNDS}; the session's snapshotter, as after run_command`,
      },
      {
        name: `store growth per checkpoint (${COMMAND_TOUCHED} files)`,
        unit: 'MB',
        ours: median(growth) / MB,
        refName: 'one whole manifest',
        reference: whole / MB,
        note: `${listed.length} files; the new contents and the manifest delta, compressed`,
      },
      ...cold,
    ]
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

/** `stepwise sessions rewind` and `undo` from the built CLI, alternating with git stash / pop. */
function coldRows(
  sessionId: string,
  startedSeq: number,
  dataDir: string,
  git: (...args: string[]) => Buffer,
  where: string,
): BenchRow[] {
  if (!fs.existsSync(CLI)) {
    log('cold restores not measured: run `npm run build` first')
    return []
  }
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [CLI, 'sessions', ...args, '--data-dir', dataDir], { stdio: 'pipe' })
  const rewinds: number[] = []
  const undos: number[] = []
  const stashes: number[] = []
  const pops: number[] = []
  for (let round = 0; round <= ROUNDS; round++) {
    let t = performance.now()
    cli('rewind', sessionId, '--to', String(startedSeq), '--yes')
    const r = performance.now() - t
    t = performance.now()
    cli('undo', sessionId, '--yes')
    const u = performance.now() - t
    t = performance.now()
    git('stash', '-q')
    const st = performance.now() - t
    t = performance.now()
    git('stash', 'pop', '-q')
    const po = performance.now() - t
    if (round === 0) continue
    rewinds.push(r / 1000)
    undos.push(u / 1000)
    stashes.push(st / 1000)
    pops.push(po / 1000)
  }
  const note = `${where}; a new process each: Node's start, the listing and a stat of every file`
  return [
    {
      name: 'rewind, cold (stepwise sessions rewind)',
      unit: 's',
      ours: median(rewinds),
      refName: 'git stash',
      reference: median(stashes),
      note,
    },
    {
      name: 'undo, cold (stepwise sessions undo)',
      unit: 's',
      ours: median(undos),
      refName: 'git stash pop',
      reference: median(pops),
      note,
    },
  ]
}

if (isMain(import.meta)) {
  benchTimetravel().then(
    (rows) => report('Time travel: rewind and undo', rows),
    (err: unknown) => {
      report('Time travel: rewind and undo', [{ name: 'timetravel', unit: 's', ours: 0, error: String(err) }])
      process.exitCode = 1
    },
  )
}
