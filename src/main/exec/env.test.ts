import os from 'node:os'
import { describe, expect, it } from 'vitest'
import { scrubEnv } from './env'
import { runCommand } from './runner'

const secrets = {
  OPENAI_API_KEY: 'sk-aaaaaaaaaaaaaaaaaaaaaaaa',
  ANTHROPIC_API_KEY: 'x',
  STEPWISE_API_KEY: 'x',
  MY_SERVICE_API_KEY: 'x',
  GITHUB_TOKEN: 'x',
  NPM_TOKEN: 'x',
  AWS_ACCESS_KEY_ID: 'x',
  AWS_SECRET_ACCESS_KEY: 'x',
  DB_PASSWORD: 'x',
  CLIENT_SECRET_VALUE: 'x',
  SSH_AUTH_SOCK: '/run/user/0/ssh',
  DATABASE_URL: 'postgres://me:hunter2@db/app',
  INNOCENT_LOOKING: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
}
const kept = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/me',
  LANG: 'C.UTF-8',
  NODE_ENV: 'test',
  DATABASE_HOST: 'db',
}

describe('environment scrubbing', () => {
  it('drops secrets by name and by value, keeps the rest, and turns prompts off', () => {
    expect(scrubEnv({ ...secrets, ...kept })).toEqual({
      ...kept,
      CI: 'true',
      GIT_TERMINAL_PROMPT: '0',
      GIT_PAGER: 'cat',
      PAGER: 'cat',
      GCM_INTERACTIVE: 'never',
      DEBIAN_FRONTEND: 'noninteractive',
    })
  })

  it('a real command sees none of them', async () => {
    const run = await runCommand({
      command: 'env | sort',
      cwd: os.tmpdir(),
      timeoutMs: 10_000,
      env: { ...process.env, ...secrets },
    })
    expect(run.exitCode).toBe(0)
    for (const name of Object.keys(secrets)) expect(run.output).not.toContain(`${name}=`)
    expect(run.output).toContain('GIT_TERMINAL_PROMPT=0')
  })
})
