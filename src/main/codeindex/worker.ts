import fs from 'node:fs'
import os from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { isRecord } from '../../shared/records'
import { processFile, type FileJob, type FileOutcome } from './process-file'

/*
 * The parse worker (pool.ts): takes batches of files, answers with their
 * outcomes. Each worker loads its own copy of the WASM runtime and grammars.
 */

export interface WorkerRequest {
  id: number
  jobs: FileJob[]
}

export interface WorkerResponse {
  id: number
  results: FileOutcome[]
}

const nice: unknown = isRecord(workerData) ? workerData.nice : undefined
lowerThreadPriority(typeof nice === 'number' ? nice : 0)

parentPort?.on('message', async (request: WorkerRequest) => {
  const results: FileOutcome[] = []
  for (const job of request.jobs) results.push(await processFile(job))
  parentPort?.postMessage({ id: request.id, results } satisfies WorkerResponse)
})

/**
 * Indexing is background work: on Linux a thread has its own nice value, so this
 * worker lowers its own and the agent loop's thread keeps the cores when both want
 * them. Elsewhere (or without /proc) it runs at normal priority.
 */
function lowerThreadPriority(nice: number): void {
  if (nice <= 0) return
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop())
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, Math.min(19, nice))
  } catch {
    // not Linux, or not allowed: normal priority
  }
}
