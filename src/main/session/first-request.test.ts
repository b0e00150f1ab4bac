import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StepwiseEvent, ToolCall } from '../../shared/protocol'
import type { ModelProvider, ModelRequest, ModelTurn } from '../providers/types'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { createSandbox } from '../containment/sandbox'
import { SMALL_TREE_FILES, smallTree } from './code-context'
import { startSession } from './start'

/*
 * The first message knows the code: on a fresh small project (TypeScript, Python, Go) and a
 * model that answers at once, the first request's map holds the project's symbols and every
 * code tool answers on the first step — nothing says "not in the code index" for a file the
 * background build had not reached yet.
 */

const PROJECT: Record<string, string> = {
  'src/math.ts':
    'export function addNumbers(a: number, b: number) {\n  return a + b\n}\n\nexport class Calculator {\n  total = 0\n  add(n: number) {\n    this.total = addNumbers(this.total, n)\n  }\n}\n',
  'src/main.ts':
    "import { Calculator } from './math'\n\n// TODO: read the numbers from argv\nnew Calculator().add(2)\n",
  'tools/greet.py':
    'class Greeter:\n    def hello(self, name):\n        return f"hello {name}"\n\n\ndef greet_all(names):\n    return [Greeter().hello(n) for n in names]\n',
  'tools/run.py': 'from greet import greet_all\n\nif __name__ == "__main__":\n    print(greet_all(["a"]))\n',
  'cmd/sum.go':
    'package main\n\nimport "fmt"\n\ntype Point struct {\n\tX int\n}\n\nfunc SumPoints(ps []Point) int {\n\tt := 0\n\tfor _, p := range ps {\n\t\tt += p.X\n\t}\n\treturn t\n}\n\nfunc main() {\n\tfmt.Println(SumPoints(nil))\n}\n',
}

let repo: string
let dataDir: string
let store: Store

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-first-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-first-data-'))
  for (const [rel, text] of Object.entries(PROJECT)) {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true })
    fs.writeFileSync(path.join(repo, rel), text)
  }
  store = openStore(dataDir)
})

afterEach(() => {
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
})

/** Every code tool, on the first step, on files of each language. */
const FIRST_STEP: ToolCall[] = [
  call('c1', 'get_structure', {}),
  call('c2', 'get_structure', { path: 'tools/greet.py' }),
  call('c3', 'get_function', { path: 'src/math.ts', name: 'addNumbers' }),
  call('c4', 'get_class', { path: 'tools/greet.py', name: 'Greeter' }),
  call('c5', 'find_definition', { symbol: 'SumPoints' }),
  call('c6', 'find_references', { symbol: 'Calculator' }),
  call('c7', 'get_dependencies', { path: 'src/main.ts' }),
  call('c8', 'get_dependents', { path: 'src/math.ts' }),
  call('c9', 'get_complexity', { path: 'cmd/sum.go' }),
  call('c10', 'get_todos', {}),
]

/** A model that answers instantly: the code tools on its first turn, then done. */
function instantModel(): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  const turns: Array<Partial<ModelTurn>> = [{ toolCalls: FIRST_STEP }, { text: 'Done.' }]
  return {
    id: 'openai-chat',
    model: 'scripted',
    baseUrl: 'http://127.0.0.1:1/v1',
    requests,
    async streamTurn(request, handlers) {
      requests.push(structuredClone(request))
      const turn = turns[requests.length - 1]
      if (!turn) throw new Error('script exhausted')
      if (turn.text) handlers.onText(turn.text)
      return { text: '', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, ...turn }
    },
  }
}

describe('the first request on a fresh small project', () => {
  it('holds the symbols, and every code tool answers on step 1', async () => {
    const provider = instantModel()
    const started = performance.now()
    const session = await startSession(store, {
      task: 'look around',
      repo,
      provider: { provider: 'openai-chat', model: 'scripted' },
      providerOverride: provider,
      policy: 'read-only',
      approver: { requestApproval: () => Promise.reject(new Error('no approval expected')) },
      retry: { sleep: async () => {} },
    })
    const startMs = performance.now() - started
    const outcome = await session.run(new AbortController().signal)
    expect(outcome.reason).toBe('done')
    const system = provider.requests[0].system
    for (const symbol of ['addNumbers', 'Calculator', 'Greeter', 'greet_all', 'SumPoints'])
      expect(system, symbol).toContain(symbol)
    expect(system).not.toContain('Partial map')
    // The session start's wait is bounded (code-context.ts SMALL_TREE_WAIT_MS) plus the baseline.
    expect(startMs).toBeLessThan(10_000)

    const finished = store
      .listEvents(session.sessionId)
      .filter((e): e is Extract<StepwiseEvent, { type: 'tool.finished' }> => e.type === 'tool.finished')
    expect(finished.map((e) => e.callId)).toEqual(FIRST_STEP.map((c) => c.id))
    for (const e of finished)
      expect(e.result, `${e.name}: ${JSON.stringify(e.result)}`).toMatchObject({ ok: true })
    const result = (id: string) => finished.find((e) => e.callId === id)!.result
    expect(result('c3')).toMatchObject({
      name: 'addNumbers',
      source: expect.stringContaining('return a + b'),
    })
    expect(result('c5')).toMatchObject({ count: 1, definitions: [{ path: 'cmd/sum.go' }] })
    expect(result('c8')).toMatchObject({ dependents: ['src/main.ts'] })
    expect(result('c10')).toMatchObject({ count: 1 })
  })
})

describe('which trees are small enough to index before the first request', () => {
  it('counts files outside denied folders, and gives up past the bound', async () => {
    expect(await smallTree(await createSandbox(repo))).toBe(true)
    // Dependencies do not make a project big: node_modules/ is denied, never walked.
    fs.mkdirSync(path.join(repo, 'node_modules/dep'), { recursive: true })
    for (let i = 0; i <= SMALL_TREE_FILES; i++)
      fs.writeFileSync(path.join(repo, `node_modules/dep/${i}.js`), '')
    expect(await smallTree(await createSandbox(repo))).toBe(true)
    fs.mkdirSync(path.join(repo, 'gen'))
    for (let i = 0; i <= SMALL_TREE_FILES; i++) fs.writeFileSync(path.join(repo, `gen/${i}.ts`), '')
    expect(await smallTree(await createSandbox(repo))).toBe(false)
  })
})
