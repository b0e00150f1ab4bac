import { z } from 'zod'
import { knownProviderIdSchema } from './events'

/**
 * What a new session's requests already take before the first message, for the context meter's
 * first paint. Merged into `commandSchemas` (commands.ts).
 */
export const contextCommandSchemas = {
  'context/baseline': {
    input: z.object({
      repo: z.string().min(1),
      /** The model to size it for; the host's default when absent. */
      provider: knownProviderIdSchema.optional(),
      model: z.string().min(1).optional(),
      baseUrl: z.string().url().optional(),
    }),
    output: z.object({
      /** Estimated tokens of each part of the first request. */
      systemTokens: z.number().int().nonnegative(),
      rulesTokens: z.number().int().nonnegative(),
      toolsTokens: z.number().int().nonnegative(),
      repoMapTokens: z.number().int().nonnegative(),
      totalTokens: z.number().int().nonnegative(),
      /** The window the requests will run in; null when nothing says (then `fix` says how to set it). */
      windowTokens: z.number().int().positive().nullable(),
      /** Where the window comes from: the server (Ollama's num_ctx), the user's setting, the model table. */
      windowSource: z.enum(['server', 'setting', 'table', 'unknown']),
      fix: z.string().optional(),
    }),
  },
} as const
