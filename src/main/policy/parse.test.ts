import { afterEach, describe, expect, it, vi } from 'vitest'

/*
 * How the shell parser loads (parse.ts): web-tree-sitter's runtime compiled on this thread, only
 * the grammar compiled in the background, and the event loop held open while that compile is
 * awaited (so Node does not block in DrainTasks on V8's other background work), then let go.
 * Each case loads a fresh copy of the module, so the parser is not the one another test made.
 */

afterEach(() => {
  vi.restoreAllMocks()
  vi.resetModules()
})

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

describe('loading the shell parser', () => {
  it('compiles the runtime here and only the grammar in the background', async () => {
    // TypeScript declares WebAssembly only in the DOM's library: reached through globalThis.
    const wasm: { instantiate: (...args: unknown[]) => unknown } = Reflect.get(globalThis, 'WebAssembly')
    const background = vi.spyOn(wasm, 'instantiate')
    const { loadShellParser, parseShell } = await import('./parse')
    const parser = await loadShellParser()
    expect(parseShell(parser, 'echo hi | wc -l').commands.map((c) => c.argv[0].value)).toEqual(['echo', 'wc'])
    // The grammar alone: the runtime went through the instantiateWasm hook, not instantiate().
    expect(background).toHaveBeenCalledTimes(1)
  })

  it('holds the event loop open while it loads, and lets it go once loaded', async () => {
    const { loadShellParser } = await import('./parse')
    const before = timers()
    const loading = loadShellParser()
    expect(timers()).toBe(before + 1)
    await loading
    expect(timers()).toBe(before)
    // Loaded once: a second call holds nothing.
    await loadShellParser()
    expect(timers()).toBe(before)
  })
})
