import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { OutputCapture } from './capture'
import { Redactor, envSecrets, fileSecrets, secretFileValues } from './redact'
import { runCommand } from './runner'
import { sandboxStatus } from './sandbox-probe'

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-redact-'))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('secret values', () => {
  it('takes secret-looking variables and URL passwords, not short or ordinary ones', () => {
    const found = envSecrets({
      OPENAI_API_KEY: 'sk-abcdefgh12',
      GITHUB_TOKEN: 'ghp_0123456789',
      DB_PASSWORD: 'hunter2hunter2',
      AWS_SESSION_TOKEN: 'FQoGZXIvYXdzEND',
      AWS_REGION: 'eu-central-1',
      SHORT_KEY: 'abc',
      HOME: '/home/someone/long',
      DATABASE_URL: 'postgres://app:s3cr%40tpass@db/app',
    })
    expect(found.map((s) => s.name).sort()).toEqual([
      'AWS_SESSION_TOKEN',
      'DATABASE_URL',
      'DATABASE_URL password',
      'DB_PASSWORD',
      'GITHUB_TOKEN',
      'OPENAI_API_KEY',
    ])
    expect(found.find((s) => s.name === 'DATABASE_URL password')?.value).toBe('s3cr@tpass')
  })

  it('reads dotenv values (quoted, exported, commented) and the lines of a key file', () => {
    const env = fileSecrets(
      '/p/.env.local',
      '# a comment\nAPI_SECRET=abcdefgh123\nexport TOKEN="quoted value here"\nSHORT=abc\nX=\'single q1\' # c\n',
    )
    expect(env).toEqual([
      { name: 'API_SECRET', value: 'abcdefgh123' },
      { name: 'TOKEN', value: 'quoted value here' },
      { name: 'X', value: 'single q1' },
    ])
    const key = fileSecrets(
      '/p/server.key',
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAB==\n-----END PRIVATE KEY-----\n',
    )
    expect(key).toEqual([{ name: 'server.key', value: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC' }])
  })

  it('rereads a secret file only when it changed', () => {
    const dir = tempDir()
    const file = path.join(dir, '.env')
    fs.writeFileSync(file, 'A_KEY=first-value-1\n')
    const first = secretFileValues([file])
    expect(secretFileValues([file])).toBe(first)
    fs.writeFileSync(file, 'A_KEY=second-value-22\n')
    expect(secretFileValues([file])).toEqual([{ name: 'A_KEY', value: 'second-value-22' }])
  })
})

describe('Redactor', () => {
  const r = new Redactor([
    { name: 'API_SECRET', value: 'dotenv-123456' },
    { name: 'LONG', value: 'dotenv-123456-and-more' },
    { name: 'RE', value: 'a.b*c(d)e+f' },
  ])

  it('replaces every value, the longest first, regex characters literally', () => {
    expect(r.redact('x dotenv-123456 y dotenv-123456-and-more z a.b*c(d)e+f axbbcde')).toBe(
      'x [REDACTED:API_SECRET] y [REDACTED:LONG] z [REDACTED:RE] axbbcde',
    )
  })

  it('redacts a value split across stream chunks, at any cut', () => {
    const text = 'HEAD:.env:API_SECRET=dotenv-123456\nmore dotenv-123456-and-more\n'
    for (let cut = 0; cut <= text.length; cut++) {
      const seen: string[] = []
      const c = new OutputCapture((_s, t) => seen.push(t), undefined, r)
      c.push('stdout', Buffer.from(text.slice(0, cut)))
      c.push('stdout', Buffer.from(text.slice(cut)))
      c.end()
      const want = 'HEAD:.env:API_SECRET=[REDACTED:API_SECRET]\nmore [REDACTED:LONG]\n'
      expect([cut, seen.join(''), c.text()]).toEqual([cut, want, want])
    }
  })

  it('holds back only an end that could start a value', () => {
    const seen: string[] = []
    const c = new OutputCapture((_s, t) => seen.push(t), { ...limitsNow }, r)
    c.push('stdout', Buffer.from('running\n'))
    expect(seen.join('')).toBe('running\n')
    c.push('stdout', Buffer.from('next: dotenv-12'))
    expect(seen.join('')).toBe('running\nnext: ')
    c.end()
    expect(seen.join('')).toBe('running\nnext: dotenv-12')
  })
})

const limitsNow = { headBytes: 1000, tailBytes: 1000, streamBytes: 10_000, flushBytes: 1, flushMs: 1 }

describe('runCommand redacts what commands print', () => {
  it.each([false, true])(
    'a committed .env read through git, and the process environment (sandbox %s)',
    async (sandboxed) => {
      if (sandboxed && !sandboxStatus().available)
        throw new Error(`the sandbox is needed here: ${sandboxStatus().reason}`)
      const dir = tempDir()
      fs.writeFileSync(path.join(dir, '.env'), 'API_SECRET=dotenv-redact-me\n')
      const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' })
      git('init', '-q')
      git('add', '-f', '.env')
      git('-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'x')
      const streamed: string[] = []
      const run = await runCommand({
        // The committed copy: unsandboxed, only redaction stands between it and the output; in the
        // sandbox the object store itself is hidden (its history holds .env).
        command: 'git grep API_SECRET HEAD; echo "$STEPWISE_TEST_TOKEN"',
        cwd: dir,
        timeoutMs: 30_000,
        sandbox: sandboxed ? { network: false } : null,
        env: { ...process.env, STEPWISE_TEST_TOKEN: 'tok-abcdef-123' },
        envAllow: ['STEPWISE_TEST_TOKEN'],
        onOutput: (_s, t) => streamed.push(t),
      })
      if (sandboxed) {
        expect(run.output).not.toContain('HEAD:.env')
        expect(run.notes?.join()).toMatch(
          /^`\.git\/objects` is hidden from commands: its history holds the secrets file `\.env`/,
        )
      } else expect(run.output).toContain('HEAD:.env:API_SECRET=[REDACTED:API_SECRET]')
      expect(run.output).toContain('[REDACTED:STEPWISE_TEST_TOKEN]')
      for (const text of [run.output, streamed.join('')]) {
        expect(text).not.toContain('dotenv-redact-me')
        expect(text).not.toContain('tok-abcdef-123')
      }
    },
  )
})
