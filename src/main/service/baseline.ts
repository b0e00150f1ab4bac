import type { CommandInput, CommandOutput } from '../../shared/protocol'
import { baseSystemPrompt, buildSystemPrompt } from '../agent/prompt'
import { toolSpecsForWindow } from '../context/compact-prompt'
import { createTokenCounter } from '../context/tokens'
import { findContextWindow } from '../context/windows'
import { createProvider } from '../providers'
import { createSandbox } from '../containment/sandbox'
import { prepareCodeContext } from '../session/code-context'
import { allTools } from '../tools/registry'
import type { ServiceContext } from './context'
import { resolveProjectDir } from './sessions'
import { storedModelOptions } from './settings'

type Baseline = CommandOutput<'context/baseline'>

const WINDOW_FIX = 'Set it in the model picker (Context window), or start with `stepwise serve --num-ctx N`.'

/** How long the server may take to say its model's length (Ollama's /api/show). */
const SHOW_TIMEOUT_MS = 5000

/**
 * What the first request of a new session already takes — the system prompt, the project's rules,
 * the tool specs and the repo map — and the window it runs in, so the meter is right from the
 * first paint. Built the way a session builds them (session/start.ts), counted with the same
 * tokenizer; the window says where it comes from and is null when nothing knows it (the
 * session would fall back to a guess).
 */
export async function contextBaseline(
  ctx: ServiceContext,
  input: CommandInput<'context/baseline'>,
): Promise<Baseline> {
  const providerId = input.provider ?? ctx.defaults.provider
  const sameAsDefault = providerId === ctx.defaults.provider
  const model = input.model ?? ctx.defaults.model
  const options = storedModelOptions(ctx.store, {
    numCtx: ctx.defaults.numCtx,
    temperature: ctx.defaults.temperature,
  })
  const provider = createProvider({
    provider: providerId,
    model,
    baseUrl: input.baseUrl ?? (sameAsDefault ? ctx.defaults.baseUrl : undefined),
    apiKey: ctx.keys.get(providerId),
    ...options,
  })

  // Resolved as a session resolves it; the provider's default is a guess, so the meter says "unknown".
  const window = await findContextWindow(provider, AbortSignal.timeout(SHOW_TIMEOUT_MS))
  const windowTokens = window.from === 'default' ? null : window.tokens
  const windowSource = (
    { provider: options.numCtx ? 'setting' : 'server', table: 'table', default: 'unknown' } as const
  )[window.from]

  const count = createTokenCounter(model)
  const root = resolveProjectDir(input.repo)
  const sandbox = await createSandbox(root)
  const code = await prepareCodeContext(ctx.store, sandbox, provider)
  const base = baseSystemPrompt()
  const withRules = buildSystemPrompt(sandbox.root).text
  const systemTokens = count.text(base)
  const rulesTokens = Math.max(0, count.text(withRules) - systemTokens)
  // A session on an unknown window runs with the provider's default: the tools are sized for that.
  const toolsTokens = count.text(JSON.stringify(toolSpecsForWindow(allTools, window.tokens)))
  const repoMapTokens = code.repoMap ? count.text(code.repoMap.text) : 0
  return {
    systemTokens,
    rulesTokens,
    toolsTokens,
    repoMapTokens,
    totalTokens: systemTokens + rulesTokens + toolsTokens + repoMapTokens,
    windowTokens,
    windowSource,
    ...(windowTokens === null ? { fix: WINDOW_FIX } : {}),
  }
}
