import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { loadProgramDotenv, parseDotenv, programFolder } from './dotenv'

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-dotenv-'))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('the .env beside stepwise', () => {
  it('parses export prefixes, quotes and comments', () => {
    const values = parseDotenv(
      '# model\nexport OPENAI_API_KEY="sk-a b"\nOPENAI_MODEL=gpt-x # the model\nBAD LINE\nEMPTY=\n',
    )
    expect(Object.fromEntries(values)).toEqual({ OPENAI_API_KEY: 'sk-a b', OPENAI_MODEL: 'gpt-x', EMPTY: '' })
  })

  it('supplies the model settings a shell did not export, and nothing else', () => {
    const program = tempDir()
    const repo = tempDir()
    fs.writeFileSync(
      path.join(program, '.env'),
      'OPENAI_API_KEY=sk-from-file\nOPENAI_MODEL=gpt-file\nOPENAI_BASE_URL=http://x\nAWS_SECRET=nope\n',
    )
    const env: NodeJS.ProcessEnv = { OPENAI_BASE_URL: 'http://exported' }
    expect(loadProgramDotenv(env, repo, program)).toEqual(['OPENAI_API_KEY', 'OPENAI_MODEL'])
    expect(env).toEqual({
      OPENAI_API_KEY: 'sk-from-file',
      OPENAI_MODEL: 'gpt-file',
      OPENAI_BASE_URL: 'http://exported',
    })
  })

  it("never reads the project's own .env: not when stepwise's folder is the project, nor inside it", () => {
    const repo = tempDir()
    fs.writeFileSync(path.join(repo, '.env'), 'OPENAI_API_KEY=sk-project-secret\n')
    fs.mkdirSync(path.join(repo, 'tools/stepwise'), { recursive: true })
    fs.writeFileSync(path.join(repo, 'tools/stepwise/.env'), 'OPENAI_API_KEY=sk-project-secret\n')
    const env: NodeJS.ProcessEnv = {}
    expect(loadProgramDotenv(env, repo, repo)).toEqual([])
    expect(loadProgramDotenv(env, repo, path.join(repo, 'tools/stepwise'))).toEqual([])
    // Through a symlink to the project too.
    const link = path.join(tempDir(), 'link')
    fs.symlinkSync(repo, link)
    expect(loadProgramDotenv(env, link, repo)).toEqual([])
    expect(env).toEqual({})
  })

  it('finds its own folder by package.json', () => {
    const folder = programFolder()
    expect(folder && JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')).name).toBe(
      'stepwise',
    )
  })
})
