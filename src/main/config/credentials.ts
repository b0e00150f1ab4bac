import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { providerDescriptor } from '../../shared/providers'

/**
 * API keys for the CLI: a JSON file readable by the user alone (0600), beside the
 * database. The desktop app keeps keys in the OS keychain instead (safeStorage).
 * Keys never go into the database, events or logs.
 */
const FILE = 'credentials.json'

/** The file as found: keys of other providers (or other values) are kept as they are when one is written. */
const CredentialsFile = z.record(z.string(), z.unknown())
type Credentials = z.infer<typeof CredentialsFile>

/** The file's entries, or nothing when it is absent, unreadable, not JSON or not an object. */
function readCredentials(file: string): Credentials {
  try {
    const parsed = CredentialsFile.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')))
    return parsed.success ? parsed.data : {}
  } catch {
    return {}
  }
}

/** The file keys are saved in (said to the user, so they know where their key is). */
export function credentialsFile(dataDir: string): string {
  return path.join(dataDir, FILE)
}

export function readApiKey(dataDir: string, provider: string): string | undefined {
  const key = readCredentials(credentialsFile(dataDir))[provider]
  return typeof key === 'string' && key ? key : undefined
}

export function writeApiKey(dataDir: string, provider: string, key: string): void {
  fs.mkdirSync(dataDir, { recursive: true })
  const file = credentialsFile(dataDir)
  // absent, unreadable or not an object: start afresh
  const current = readCredentials(file)
  current[provider] = key
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(current, null, 2), { mode: 0o600 })
  fs.renameSync(tmp, file)
  fs.chmodSync(file, 0o600)
}

/** The key for a provider: the environment first, then the stored file. */
export function resolveApiKey(env: NodeJS.ProcessEnv, dataDir: string, provider: string): string | undefined {
  const variable = providerDescriptor(provider).env.apiKey
  if (variable && env[variable]) return env[variable]
  return readApiKey(dataDir, provider)
}
