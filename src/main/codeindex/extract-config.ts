import path from 'node:path'
import { isRecord } from '../../shared/records'
import { emptyFacts } from './extract-common'
import type { ConfigFacts, FileFacts } from './types'

/*
 * Configuration files: JSON (JSON.parse, with comments and trailing commas
 * removed for tsconfig-style files), YAML (top-level keys, read line by line —
 * no YAML parser is needed for that) and go.mod (the module path). What the
 * resolver needs (tsconfig paths, package.json entry points, the Go module) is
 * kept; for the rest, the keys.
 */

const MAX_KEYS = 100

export function analyzeConfig(
  rel: string,
  text: string,
  base: Pick<FileFacts, 'language' | 'size' | 'lines'>,
): FileFacts {
  const facts = emptyFacts({ ...base, kind: 'config' })
  const name = path.posix.basename(rel)
  if (name === 'go.mod') {
    const module = /^\s*module\s+(\S+)/m.exec(text)?.[1]
    facts.config = { format: 'go.mod', keys: [], ...(module ? { goModule: module } : {}) }
    return facts
  }
  if (base.language === 'yaml') {
    facts.config = { format: 'yaml', keys: yamlTopLevelKeys(text) }
    return facts
  }
  const parsed = parseJsonLenient(text)
  if (parsed === undefined) {
    facts.parseErrors = 1
    facts.note = 'not valid JSON'
    facts.config = { format: 'json', keys: [] }
    return facts
  }
  const config: ConfigFacts = {
    format: 'json',
    keys: isRecord(parsed) ? Object.keys(parsed).slice(0, MAX_KEYS) : [],
  }
  const obj = isRecord(parsed) ? parsed : {}
  if (name === 'package.json') packageJson(obj, config)
  if (/^(ts|js)config.*\.json$/.test(name)) tsconfig(obj, config)
  facts.config = config
  return facts
}

function parseJsonLenient(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    try {
      return JSON.parse(stripJsonComments(text))
    } catch {
      return undefined
    }
  }
}

/** Removes // and /* *\/ comments outside strings, and trailing commas (JSONC, as tsconfig allows). */
export function stripJsonComments(text: string): string {
  let out = ''
  let i = 0
  while (i < text.length) {
    const ch = text[i]
    if (ch === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      out += text.slice(i, j + 1)
      i = j + 1
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end === -1 ? text.length : end + 2
    } else {
      out += ch
      i++
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1')
}

function packageJson(obj: Record<string, unknown>, config: ConfigFacts): void {
  if (typeof obj.name === 'string') config.packageName = obj.name
  const entries = new Set<string>()
  const add = (v: unknown) => {
    if (typeof v === 'string') entries.add(v.replace(/^\.\//, ''))
    else if (v && typeof v === 'object') for (const x of Object.values(v)) add(x)
  }
  add(obj.main)
  add(obj.module)
  add(obj.bin)
  add(obj.exports)
  if (entries.size > 0) config.entryFiles = [...entries].slice(0, 50)
}

function tsconfig(obj: Record<string, unknown>, config: ConfigFacts): void {
  const options = isRecord(obj.compilerOptions) ? obj.compilerOptions : {}
  if (typeof options.baseUrl === 'string') config.baseUrl = options.baseUrl
  if (options.paths && typeof options.paths === 'object') {
    const paths: Record<string, string[]> = {}
    for (const [key, value] of Object.entries(options.paths))
      if (Array.isArray(value)) paths[key] = value.filter((v): v is string => typeof v === 'string')
    config.paths = paths
  }
  if (typeof obj.extends === 'string') config.extends = obj.extends
}

export function yamlTopLevelKeys(text: string): string[] {
  const keys: string[] = []
  for (const raw of text.split('\n')) {
    const m = /^(?:"([^"]+)"|'([^']+)'|([^\s#:'"-][^:#]*?))\s*:(?:\s|$)/.exec(raw)
    if (!m) continue
    const key = m[1] ?? m[2] ?? m[3]
    if (!keys.includes(key)) keys.push(key)
    if (keys.length >= MAX_KEYS) break
  }
  return keys
}
