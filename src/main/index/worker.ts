import { parentPort } from 'node:worker_threads'
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

parentPort?.on('message', async (request: WorkerRequest) => {
  const results: FileOutcome[] = []
  for (const job of request.jobs) results.push(await processFile(job))
  parentPort?.postMessage({ id: request.id, results } satisfies WorkerResponse)
})
