import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Language, Parser } from 'web-tree-sitter'
import { isRecord } from '../shared/records'

/*
 * web-tree-sitter's runtime and its grammars, loaded the one way both of its users need: the shell
 * parser (policy/parse.ts, a session's first command) and the code index (codeindex/parser.ts, which
 * parses a small tree on the session's thread before the first request). Each load was held up by
 * V8's unrelated background work: 60–137 ms for a 210 KB runtime that compiles in ~10 ms on its own,
 * 50–65 ms for a grammar loaded later (docs/benchmarks.md):
 * - The event loop is held open while a load awaits. Nothing else may hold it then (the model's
 *   socket idle, the watches unref'd), and a loop that runs dry makes Node block in
 *   NodePlatform::DrainTasks until every V8 task thread is idle — including the optimising compiles
 *   the session's JavaScript has queued — not only the module's compile.
 * - The runtime is compiled on this thread (emscripten's `instantiateWasm` hook) instead of queued
 *   behind those tasks, once per thread for both users; the files are read at once, not on libuv's
 *   thread pool. A grammar (up to ~1.4 MB) still compiles in the background, the loop held open.
 */

// Not named `require`: the bundler adds a `require` shim of its own to ESM chunks.
const nodeRequire = createRequire(import.meta.url)

let runtime: Promise<void> | undefined

/** The grammar in the WebAssembly file at `file`, with this thread's runtime made first if need be. */
export function loadLanguage(file: string): Promise<Language> {
  return holdingLoop(async () => {
    if (!runtime) {
      runtime = Parser.init({
        instantiateWasm: instantiateHere(wasmFile('web-tree-sitter/web-tree-sitter.wasm')),
      })
      // A runtime that failed to load is tried again by the next caller.
      runtime.catch(() => (runtime = undefined))
    }
    await runtime
    return Language.load(wasmFile(file))
  })
}

/** The bytes of a WebAssembly file named by its path or as a package's (`pkg/file.wasm`). */
function wasmFile(file: string): Buffer {
  return fs.readFileSync(path.isAbsolute(file) ? file : nodeRequire.resolve(file))
}

/** `work`, with a timer keeping the event loop from running dry until it is done. */
async function holdingLoop<T>(work: () => Promise<T>): Promise<T> {
  const hold = setInterval(() => undefined, 60_000)
  try {
    return await work()
  } finally {
    clearInterval(hold)
  }
}

/** The part of the WebAssembly API used here: TypeScript declares it only in the DOM's library. */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object, imports: object) => object
}

const isWasmApi = (value: unknown): value is WasmApi =>
  isRecord(value) && typeof value.Module === 'function' && typeof value.Instance === 'function'

/**
 * Emscripten's `instantiateWasm` hook for a module compiled and instantiated on this thread: it
 * hands the instance (then the module) to the runtime's callback.
 */
function instantiateHere(bytes: Uint8Array) {
  const wasm: unknown = Reflect.get(globalThis, 'WebAssembly')
  if (!isWasmApi(wasm)) throw new Error('This JavaScript runtime has no WebAssembly: tree-sitter needs it.')
  return (imports: object, received: (instance: object, module: object) => void): void => {
    const module = new wasm.Module(bytes)
    received(new wasm.Instance(module, imports), module)
  }
}
