import { afterEach, describe, expect, it, vi } from 'vitest'

/*
 * How tree-sitter's WebAssembly loads (tree-sitter.ts), for both of its users: the runtime compiled
 * on this thread once, only the grammars compiled in the background, and the event loop held open
 * while a load awaits (so Node does not block in DrainTasks on V8's other background work), then
 * let go. Each case loads fresh copies of the modules, so the runtime is not one another test made.
 */

afterEach(() => {
  vi.restoreAllMocks()
  vi.resetModules()
})

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

describe('loading tree-sitter', () => {
  it('compiles the runtime here, once for the shell parser and the code index, and only grammars in the background', async () => {
    // TypeScript declares WebAssembly only in the DOM's library: reached through globalThis.
    const wasm: { instantiate: (...args: unknown[]) => unknown } = Reflect.get(globalThis, 'WebAssembly')
    const background = vi.spyOn(wasm, 'instantiate')
    const { loadShellParser, parseShell } = await import('./policy/parse')
    const { loadGrammar } = await import('./codeindex/parser')
    const parser = await loadShellParser()
    expect(parseShell(parser, 'echo hi | wc -l').commands.map((c) => c.argv[0].value)).toEqual(['echo', 'wc'])
    const grammar = await loadGrammar('python')
    expect(grammar.loaded && grammar.parser.parse('def f():\n    return 1\n')?.rootNode.type).toBe('module')
    // The two grammars alone: the runtime went through the instantiateWasm hook, not instantiate().
    expect(background).toHaveBeenCalledTimes(2)
  })

  it('holds the event loop open while it loads, and lets it go once loaded', async () => {
    const { loadShellParser } = await import('./policy/parse')
    const { loadGrammar } = await import('./codeindex/parser')
    const before = timers()
    const loading = loadShellParser()
    expect(timers()).toBe(before + 1)
    await loading
    expect(timers()).toBe(before)
    // Loaded once: a second call holds nothing.
    await loadShellParser()
    expect(timers()).toBe(before)
    // A code-index grammar loaded later (the runtime made) holds the loop for its own load too.
    const grammar = loadGrammar('go')
    expect(timers()).toBe(before + 1)
    expect((await grammar).loaded).toBe(true)
    expect(timers()).toBe(before)
  })
})
