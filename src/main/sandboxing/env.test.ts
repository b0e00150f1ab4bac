import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { childEnv } from './env'
import { runCommand } from './runner'

const secrets = {
  OPENAI_API_KEY: 'sk-aaaaaaaaaaaaaaaaaaaaaaaa',
  ANTHROPIC_API_KEY: 'x',
  // Names no removal list would think of: the allowlist keeps them out anyway.
  LITELLM_MASTER_KEY: 'sk-litellm-master',
  MY_SERVICE_CONFIG: 'opaque',
  GITHUB_TOKEN: 'x',
  AWS_SECRET_ACCESS_KEY: 'x',
  SSH_AUTH_SOCK: '/run/user/0/ssh',
  DATABASE_URL: 'postgres://me:hunter2@db/app',
  // An allowed name whose value is a credential still goes.
  PYTHONPATH: 'https://me:hunter2@example.com/lib',
}
const kept = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/me',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  NODE_ENV: 'test',
  GOPATH: '/home/me/go',
  CARGO_HOME: '/home/me/.cargo',
}

describe('environment allowlist', () => {
  it('keeps allowlisted names, drops everything else and credential values, turns prompts off', () => {
    expect(childEnv({ ...secrets, ...kept })).toEqual({
      ...kept,
      CI: 'true',
      GIT_TERMINAL_PROMPT: '0',
      GIT_PAGER: 'cat',
      PAGER: 'cat',
      GCM_INTERACTIVE: 'never',
      DEBIAN_FRONTEND: 'noninteractive',
    })
  })

  it('passes the names the user adds, exactly or by prefix', () => {
    const env = childEnv(
      { ...kept, MYAPP_MODE: 'dev', MYAPP_PORT: '1', MY_SERVICE_CONFIG: 'x', OTHER: 'y' },
      ['MYAPP_*', 'MY_SERVICE_CONFIG'],
    )
    expect(env).toMatchObject({ MYAPP_MODE: 'dev', MYAPP_PORT: '1', MY_SERVICE_CONFIG: 'x' })
    expect(env.OTHER).toBeUndefined()
  })

  it('a real command, sandboxed or not, sees none of the rest', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-env-'))
    onTestFinished(() => fs.rmSync(cwd, { recursive: true, force: true }))
    for (const sandbox of [null, { network: false }]) {
      const run = await runCommand({
        command: 'env | sort',
        cwd,
        timeoutMs: 10_000,
        sandbox,
        env: { ...process.env, ...secrets },
        envAllow: ['MY_SERVICE_CONFIG'],
      })
      expect(run.exitCode, run.output).toBe(0)
      for (const name of Object.keys(secrets).filter((n) => n !== 'MY_SERVICE_CONFIG'))
        expect(run.output).not.toContain(`${name}=`)
      expect(run.output).toContain('MY_SERVICE_CONFIG=opaque')
      expect(run.output).toContain('GIT_TERMINAL_PROMPT=0')
    }
  })
})
