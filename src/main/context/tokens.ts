import { createRequire } from 'node:module'
import { isRecord } from '../../shared/records'
import type { ModelRequest, TranscriptItem } from '../providers/types'
import { rankTable, type Encoding } from './token-tables'

type Count = (text: string) => number

// The encodings' tables take ~0.1 s to load: only a command that counts tokens pays for them
// (an undo or `sessions list` does not).
const load = createRequire(import.meta.url)
let o200k: Count | undefined
let cl100k: Count | undefined
/**
 * The `countTokens` of gpt-tokenizer's encoder for `encoding`, made as the library's own encoding
 * modules make it but on the rank table token-tables.ts finds; checked once when it loads.
 */
function loadCounter(encoding: Encoding): Count {
  const mod: unknown = load('gpt-tokenizer/GptEncoding')
  const encoder: unknown = isRecord(mod) ? mod.GptEncoding : undefined
  const make: unknown = typeof encoder === 'function' ? Reflect.get(encoder, 'getEncodingApi') : undefined
  if (typeof make !== 'function')
    throw new Error('gpt-tokenizer exports no GptEncoding.getEncodingApi: not the gpt-tokenizer expected.')
  const api: unknown = make.call(encoder, encoding, () => rankTable(encoding))
  if (!isRecord(api) || typeof api.countTokens !== 'function')
    throw new Error(`gpt-tokenizer's ${encoding} encoder has no countTokens: not the gpt-tokenizer expected.`)
  const countTokens = api.countTokens
  return (text) => Number(countTokens(text))
}
const countO200k: Count = (text) => (o200k ??= loadCounter('o200k_base'))(text)
const countCl100k: Count = (text) => (cl100k ??= loadCounter('cl100k_base'))(text)

/**
 * Token counts for the context meter and compaction. OpenAI models get their real
 * tokenizer (o200k for current models, cl100k for gpt-4 / gpt-3.5). Other models
 * are estimated with o200k and corrected by `calibrate`: after each turn the
 * server's own prompt count (Ollama's prompt_eval_count, a Chat server's
 * usage.prompt_tokens) is compared with our estimate of the same request.
 */
export interface TokenCounter {
  /** Estimated tokens of one request as the model will see it. */
  request(request: ModelRequest): number
  /** Estimated tokens of one transcript item (calibrated like `request`). */
  item(item: TranscriptItem): number
  /** Estimated tokens of a text (calibrated like `request`), e.g. a tool output being cut. */
  text(text: string): number
  /** Feed back what the server said the request cost, to correct later estimates. */
  calibrate(estimated: number, reported: number): void
}

/** Per-message framing the chat templates add (role markers, separators). */
const MESSAGE_OVERHEAD = 4

export function tokenizerFor(model: string): (text: string) => number {
  return linearCount(/^(gpt-4(?![.o])|gpt-3\.5)/.test(model) ? countCl100k : countO200k)
}

/**
 * BPE merges within one pre-token take time quadratic in its length, and a run of one
 * character class (`aaaa…`, 100 KB of spaces, `=-=-…`) is one pre-token: 150 KB of one letter
 * took over a minute. No pre-token outlives a run of 256 non-space or space characters, so such
 * runs are counted apart, in pieces of PIECE characters (a token may be split at a piece's edge: an
 * estimate off by at most one token a piece), and past SAMPLE characters a run is extrapolated from
 * the pieces counted. Any text then costs time linear in its length (bench/tokens.bench.ts).
 */
export function linearCount(count: Count): Count {
  return (text) => {
    if (text.length < LONG_RUN) return count(text)
    let runs = 0
    const rest = text.replace(LONG_RUNS, (run) => {
      runs += countRun(count, run)
      return ' '
    })
    return count(rest) + runs
  }
}

const LONG_RUN = 256
const LONG_RUNS = /\S{256,}|\s{256,}/g
const PIECE = 128
const SAMPLE = 16 * 1024

function countRun(count: Count, run: string): number {
  const sampled = Math.min(run.length, SAMPLE)
  let tokens = 0
  for (let at = 0; at < sampled; at += PIECE) tokens += count(run.slice(at, Math.min(at + PIECE, sampled)))
  return sampled === run.length ? tokens : Math.ceil((tokens * run.length) / sampled)
}

/** Loads the model's token tables now (~0.3 s of this thread), for a caller that is waiting anyway. */
export function warmTokenizer(model: string): void {
  tokenizerFor(model)('')
}

export function createTokenCounter(model: string): TokenCounter {
  const count = tokenizerFor(model)
  // Items never change once in the transcript, so each is counted once.
  const itemCache = new WeakMap<TranscriptItem, number>()
  const textCache = new Map<string, number>()
  let ratio = 1

  const cachedText = (text: string): number => {
    let n = textCache.get(text)
    if (n === undefined) {
      n = count(text)
      if (textCache.size > 64) textCache.clear()
      textCache.set(text, n)
    }
    return n
  }

  const item = (it: TranscriptItem): number => {
    let n = itemCache.get(it)
    if (n !== undefined) return n
    switch (it.role) {
      case 'user':
        n = count(it.text)
        break
      case 'assistant':
        n = count(it.text) + it.toolCalls.reduce((sum, c) => sum + count(c.name) + count(c.arguments) + 3, 0)
        break
      case 'tool':
        n = count(it.output) + 2
        break
    }
    n += MESSAGE_OVERHEAD
    itemCache.set(it, n)
    return n
  }

  return {
    item: (it) => item(it) * ratio,
    text: (text) => count(text) * ratio,
    request(request) {
      const raw =
        cachedText(request.system) +
        cachedText(JSON.stringify(request.tools)) +
        request.transcript.reduce((sum, it) => sum + item(it), 0)
      return Math.ceil(raw * ratio)
    },
    calibrate(estimated, reported) {
      if (estimated <= 0 || reported <= 0) return
      // Blend, so one odd answer does not swing the meter; stay within sane bounds.
      const observed = (reported / estimated) * ratio
      ratio = Math.min(3, Math.max(0.33, ratio * 0.5 + observed * 0.5))
    },
  }
}
