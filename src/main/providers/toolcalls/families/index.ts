import type { ToolCallFamily } from '../types'
import { apertus } from './apertus'
import { functionary } from './functionary'
import { functools } from './functools'
import { gemma } from './gemma'
import { internlm } from './internlm'
import { lfm2 } from './lfm2'
import { nemotron } from './nemotron'
import { olmo3 } from './olmo3'
import { plamo3 } from './plamo3'
import { seedOss } from './seed-oss'
import { step3 } from './step3'
import { xlam } from './xlam'
import { commandR } from './command-r'
import { deepseek } from './deepseek'
import { gigachat } from './gigachat'
import { glimmer } from './glimmer'
import { glm } from './glm'
import { granite } from './granite'
import { harmony } from './harmony'
import { kimi } from './kimi'
import { kimiK3 } from './kimi-k3'
import { minimax } from './minimax'
import { minimaxM3 } from './minimax-m3'
import { hermes } from './hermes'
import { json } from './json'
import { llama3 } from './llama3'
import { longcat } from './longcat'
import { mistral } from './mistral'
import { pythonic } from './pythonic'
import { qwen3Coder } from './qwen3-coder'
import { solarOpen } from './solar-open'
import { k2Horizon } from './k2-horizon'
import { minicpm5 } from './minicpm5'
import { cwm } from './cwm'
import { dots } from './dots'
import { rwkv } from './rwkv'
import { mirothinker } from './mirothinker'
import { qwen25Coder } from './qwen25-coder'
import { inkling } from './inkling'

/*
 * Every format family, one module each. Order does not decide anything: every family
 * parses the whole text and `../index.ts` resolves overlapping spans. Add a family by
 * importing it and listing it here.
 */
// One family per line, so adding one is a one-line change.
// prettier-ignore
export const FAMILIES: readonly ToolCallFamily[] = [
  hermes,
  json,
  qwen3Coder,
  mistral,
  llama3,
  pythonic,
  gemma,
  lfm2,
  apertus,
  functionary,
  functools,
  nemotron,
  xlam,
  internlm,
  seedOss,
  deepseek,
  glm,
  kimi,
  minimax,
  harmony,
  commandR,
  granite,
  olmo3,
  step3,
  glimmer,
  kimiK3,
  minimaxM3,
  longcat,
  gigachat,
  plamo3,
  solarOpen,
  k2Horizon,
  minicpm5,
  cwm,
  dots,
  rwkv,
  mirothinker,
  qwen25Coder,
  inkling,
]
