import fs from 'node:fs'
import path from 'node:path'
import { safeStorage } from 'electron'
import { z } from 'zod'
import type { ProviderId } from '../../../shared/protocol'
import type { KeyStore } from '../../service/context'
import { providerDescriptor } from '../../../shared/providers'

// API keys on the desktop: encrypted with the OS keychain (safeStorage) in a 0600 file beside the
// database. The environment still wins, as in the CLI. Keys never reach the renderer.

const FILE = 'keys.enc.json'

/** The file's shape: each provider's sealed key, base64. */
const savedKeys = z.record(z.string(), z.string())

export function safeStorageKeys(dataDir: string, env: NodeJS.ProcessEnv = process.env): KeyStore {
  const file = path.join(dataDir, FILE)
  const read = (): Record<string, string> => {
    try {
      const parsed = savedKeys.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')))
      return parsed.success ? parsed.data : {}
    } catch {
      return {}
    }
  }
  return {
    storage: 'Encrypted with your system keychain and kept on this machine; it is never shown again.',
    // MCP sign-ins (mcp/oauth/store.ts) are sealed with the same keychain when it is there.
    sealer: safeStorage.isEncryptionAvailable()
      ? {
          seal: (text: string) => safeStorage.encryptString(text).toString('base64'),
          open: (sealed: string) => safeStorage.decryptString(Buffer.from(sealed, 'base64')),
        }
      : undefined,
    get(provider: ProviderId) {
      const variable = providerDescriptor(provider).env.apiKey
      if (variable && env[variable]) return env[variable]
      const sealed = read()[provider]
      if (!sealed || !safeStorage.isEncryptionAvailable()) return undefined
      try {
        return safeStorage.decryptString(Buffer.from(sealed, 'base64'))
      } catch {
        return undefined
      }
    },
    set(provider: ProviderId, key: string) {
      if (!safeStorage.isEncryptionAvailable())
        throw new Error(
          'The OS keychain is not available, so the key cannot be stored safely. Set OPENAI_API_KEY instead.',
        )
      const all = { ...read(), [provider]: safeStorage.encryptString(key).toString('base64') }
      fs.mkdirSync(dataDir, { recursive: true })
      const tmp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 })
      fs.renameSync(tmp, file)
    },
  }
}
