import fs from 'node:fs'
import path from 'node:path'
import { PROTOCOL_VERSION } from '../../shared/protocol'
import { createSandbox } from '../containment/sandbox'
import { snapshotterFor } from '../session/start'
import type { Store } from '../store/types'

/**
 * For tests (here, the crash child, the bench): a session recorded the way the
 * agent loop records one — baseline snapshot and session.started, then a
 * checkpoint.created per change — without a model.
 */
export interface RecordedSession {
  sessionId: string
  root: string
  /** Applies `files` (null deletes) and checkpoints them; returns the event's seq. */
  change(files: Record<string, string | null>): Promise<number>
  startedSeq: number
}

export function readTree(root: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {}
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name
    if (e.isDirectory()) Object.assign(out, readTree(root, p))
    else out[p] = fs.readFileSync(path.join(root, p), 'utf8')
  }
  return out
}

export function writeFiles(root: string, files: Record<string, string | null>): void {
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(root, rel)
    if (text === null) fs.rmSync(abs, { force: true })
    else {
      fs.mkdirSync(path.dirname(abs), { recursive: true })
      fs.writeFileSync(abs, text)
    }
  }
}

export async function recordSession(store: Store, repo: string): Promise<RecordedSession> {
  const sandbox = await createSandbox(repo)
  const snapshotter = snapshotterFor(store, sandbox)
  const session = store.createSession({ repo: sandbox.root, title: 't', provider: 'openai', model: 'm' })
  const baseline = await snapshotter.takeSnapshot({ sessionId: session.id, label: 'baseline' })
  const started = store.appendEvent(session.id, {
    type: 'session.started',
    protocolVersion: PROTOCOL_VERSION,
    repo: sandbox.root,
    provider: 'openai',
    model: 'm',
    approvalPolicy: 'auto-edit',
    maxSteps: 10,
    baselineSnapshotId: baseline.info.id,
  })
  store.appendEvent(session.id, { type: 'user.message', text: 'go' })
  let calls = 0
  return {
    sessionId: session.id,
    root: sandbox.root,
    startedSeq: started.seq,
    async change(files) {
      writeFiles(sandbox.root, files)
      const { info, changed } = await snapshotter.takeSnapshot({ sessionId: session.id, label: 'checkpoint' })
      const paths = [...changed.added, ...changed.modified, ...changed.deleted].sort()
      return store.appendEvent(session.id, {
        type: 'checkpoint.created',
        snapshotId: info.id,
        callId: `c${++calls}`,
        paths,
      }).seq
    },
  }
}
