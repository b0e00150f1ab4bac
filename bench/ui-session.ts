import { databaseOf } from '../src/main/store/handle'
import { reduceEvents } from '../src/shared/reducer'
import { openStore } from '../src/main/store/store'

/*
 * A long stored session for the timeline benchmark, written through the real store so
 * it is exactly what the app reads back: a session.started, then turns of a user
 * message and model steps (text and one or two tool calls each, every call a
 * tool.started/tool.finished pair with a small result), until the timeline has `steps`
 * steps, the last one the session.finished. Kinds that need a snapshot are left out.
 */

export interface LongSession {
  sessionId: string
  /** Events stored. */
  events: number
  /** Timeline steps, counted by the renderer's own reducer. */
  steps: number
  /** The seq of the newest step: the row the live view opens at. */
  lastStepSeq: number
}

const TOOLS = ['read_file', 'search', 'list_files'] as const
const STEPS_PER_TURN = 40

export function writeLongSession(dataDir: string, repo: string, steps: number): LongSession {
  const store = openStore(dataDir)
  try {
    const session = store.createSession({
      repo,
      title: `Bench: ${steps.toLocaleString('en-US')} steps`,
      provider: 'ollama',
      model: 'coder:1b',
    })
    const id = session.id
    let made = 0
    let modelStep = 0
    let call = 0
    const write = databaseOf(store).transaction(() => {
      store.appendEvent(id, {
        type: 'session.started',
        protocolVersion: 1,
        repo,
        provider: 'ollama',
        model: 'coder:1b',
        approvalPolicy: 'auto-edit',
        maxSteps: 10_000,
      })
      const room = () => steps - 1 - made // the last step is the session.finished
      while (room() > 0) {
        store.appendEvent(id, { type: 'user.message', text: `Task ${made}: tidy the next module please.` })
        made++
        for (let i = 0; i < STEPS_PER_TURN && room() > 0; i++) {
          modelStep++
          const calls = Math.min(room() - 1, 1 + (modelStep % 2))
          const toolCalls = Array.from({ length: calls }, (_, k) => {
            const n = call++
            const name = TOOLS[n % TOOLS.length]
            const args =
              name === 'search' ? { query: `value${n % 97}` } : { path: `src/mod${n % 7}/file${n}.ts` }
            return { id: `call_${n}`, name, arguments: JSON.stringify(args), args, k }
          })
          store.appendEvent(id, {
            type: 'assistant.message',
            step: modelStep,
            text:
              calls > 0
                ? `Step ${modelStep}: checking ${toolCalls[0].name}.`
                : `Step ${modelStep}: done here.`,
            toolCalls: toolCalls.map(({ id: callId, name, arguments: a }) => ({
              id: callId,
              name,
              arguments: a,
            })),
            usage: { inputTokens: 1200 + modelStep, outputTokens: 40 },
            durationMs: 700,
            provider: 'ollama',
            model: 'coder:1b',
          })
          made++
          for (const c of toolCalls) {
            store.appendEvent(id, {
              type: 'tool.started',
              callId: c.id,
              name: c.name,
              args: c.args,
              mutating: false,
            })
            store.appendEvent(id, {
              type: 'tool.finished',
              callId: c.id,
              name: c.name,
              ok: true,
              result: { ok: true, lines: 3, content: `1\texport const v${c.k} = ${c.k}\n2\t\n3\t// end\n` },
              durationMs: 1.5,
            })
            made++
          }
        }
      }
      store.appendEvent(id, {
        type: 'session.finished',
        reason: 'done',
        steps: modelStep,
        usage: { inputTokens: 1_000_000, outputTokens: 40 * modelStep },
        durationMs: 3_600_000,
      })
    })
    write()
    store.setSessionStatus(id, 'done')
    const events = store.listEvents(id)
    const view = reduceEvents(events)
    if (view.steps.length !== steps)
      throw new Error(`the generated session has ${view.steps.length} timeline steps, expected ${steps}`)
    return {
      sessionId: id,
      events: events.length,
      steps: view.steps.length,
      lastStepSeq: view.steps[view.steps.length - 1].seq,
    }
  } finally {
    store.close()
  }
}
