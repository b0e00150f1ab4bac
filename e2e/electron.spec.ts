import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { _electron as electron, expect, test } from '@playwright/test'
import { startFakeModelServer } from '../test/fake-model-server'
import { gitProject } from './serve-harness'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))

/**
 * The Electron executable, found without `require('electron')`: that require downloads the binary
 * when it is missing, and the download cannot succeed offline.
 */
function electronBinary(): string | null {
  const packageDir = dirname(createRequire(join(repoRoot, 'package.json')).resolve('electron/package.json'))
  const pathFile = join(packageDir, 'path.txt')
  const relativePath = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : ''
  const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(packageDir, 'dist')
  const binary = join(distDir, relativePath || 'electron')
  return relativePath && existsSync(binary) ? binary : null
}

const binary = electronBinary()
const SKIP_REASON =
  'the Electron binary is not installed (Electron downloads it on first launch, which cannot happen offline); CI with network runs this'
if (!binary) console.log(`[e2e] skipping the Electron app test: ${SKIP_REASON}`)

test('the Electron app opens a sandboxed window with only the stepwise bridge', async () => {
  test.skip(!binary, SKIP_REASON)
  const app = await electron.launch({
    executablePath: binary ?? undefined,
    // Chromium refuses to start as root with its sandbox on (CI containers run as root).
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      join(repoRoot, 'out', 'main', 'electron-main.js'),
    ],
    // A fresh data folder: the app starts with no sessions.
    env: {
      ...process.env,
      ELECTRON_ENABLE_LOGGING: '1',
      STEPWISE_HOME: mkdtempSync(join(tmpdir(), 'stepwise-electron-')),
    },
  })
  try {
    const page = await app.firstWindow()
    await expect(page.getByTestId('app-root')).toBeVisible()
    await expect(page.getByTestId('chat-input')).toBeVisible()
    expect(page.url()).toBe('app://stepwise/index.html')

    // Runs in the renderer; `globalThis` is the page's window (this tsconfig has no DOM types).
    const bridge = await page.evaluate(async () => {
      const { stepwise } = globalThis as unknown as Window
      return {
        keys: Object.keys(stepwise).sort(),
        hasRequire: 'require' in globalThis,
        hasProcess: 'process' in globalThis,
        sessions: await stepwise.invoke('session/list', {}),
        refused: await stepwise.invoke('turn/start', { sessionId: 'no-such-session', text: 'hi' }).then(
          () => 'answered',
          (error: Error) => error.message,
        ),
      }
    })
    expect(bridge).toEqual({
      keys: ['invoke', 'onEvent'],
      hasRequire: false,
      hasProcess: false,
      sessions: { sessions: [] },
      refused: 'No session no-such-session.',
    })
  } finally {
    await app.close()
  }
})

test('the Electron app opens a project, chats with the model and accepts a change', async () => {
  test.skip(!binary, SKIP_REASON)
  const repo = gitProject({ 'a.txt': 'one\ntwo\n' })
  const model = await startFakeModelServer({
    models: ['qwen2.5-coder:7b'],
    turns: [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one\nTWO\n' } }] },
      { text: 'Changed two.' },
    ],
  })
  const app = await electron.launch({
    executablePath: binary ?? undefined,
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      join(repoRoot, 'out', 'main', 'electron-main.js'),
    ],
    env: {
      ...process.env,
      STEPWISE_HOME: mkdtempSync(join(tmpdir(), 'stepwise-electron-')),
      OLLAMA_HOST: model.url,
      OPENAI_API_KEY: '',
    },
  })
  try {
    const page = await app.firstWindow()
    await page.getByTestId('project-path').fill(repo)
    await page.getByTestId('open-project').click()
    await page.getByTestId('chat-input').fill('Capitalise two')
    await page.getByTestId('chat-input').press('Enter')
    await expect(page.getByTestId('approval-panel')).toBeVisible()
    await page.getByTestId('approve-button').click()
    await expect(page.getByTestId('timeline-step').filter({ hasText: 'Changed two.' })).toBeVisible()
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('one\nTWO\n')
  } finally {
    await app.close()
    await model.close()
  }
})
