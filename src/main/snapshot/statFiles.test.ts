import fs from 'node:fs'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { tempDir } from '../store/testing/helpers'
import { STAT_FIELDS, STAT_OK, statFiles } from './statFiles'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function tree(): { root: string; paths: string[] } {
  const root = fs.realpathSync(tempDir('stepwise-stat-'))
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  const paths: string[] = []
  for (let i = 0; i < 40; i++) {
    const rel = `d${i % 3}/f${i}.txt`
    fs.mkdirSync(path.join(root, `d${i % 3}`), { recursive: true })
    fs.writeFileSync(path.join(root, rel), 'x'.repeat(i))
    paths.push(rel)
  }
  fs.symlinkSync('f1.txt', path.join(root, 'd1/link.txt'))
  paths.push('d1/link.txt', 'missing.txt', 'd0/f0.txt/not-a-dir')
  return { root, paths }
}

function expected(root: string, paths: string[]): Float64Array {
  const out = new Float64Array(paths.length * STAT_FIELDS)
  paths.forEach((rel, i) => {
    let st: fs.Stats | undefined
    try {
      st = fs.statSync(path.join(root, rel))
    } catch {
      return
    }
    out.set([STAT_OK, st.size, st.mtimeMs, st.ino, st.mode], i * STAT_FIELDS)
  })
  return out
}

describe('statFiles', () => {
  it('stats every path on this thread: links followed, status 0 where stat fails', async () => {
    const { root, paths } = tree()
    const out = await statFiles(root, paths, { parallelMinFiles: Number.POSITIVE_INFINITY })
    expect(out).toEqual(expected(root, paths))
    expect([...out.subarray(-3 * STAT_FIELDS)].filter((_, i) => i % STAT_FIELDS === 0)).toEqual([
      STAT_OK,
      0,
      0,
    ])
  })

  it('gives the same answer when the paths go to the helper threads', async () => {
    const { root, paths } = tree()
    expect(await statFiles(root, paths, { parallelMinFiles: 1 })).toEqual(expected(root, paths))
    // Again, on the helpers that are now running, and with fewer paths than before.
    const fewer = paths.slice(5)
    expect(await statFiles(root, fewer, { parallelMinFiles: 1 })).toEqual(expected(root, fewer))
  })

  it('gives the same answer when the helpers get the paths as the bytes a saved state holds', async () => {
    const { root, paths } = tree()
    for (const name of ['d2/été ü.txt', 'd2/日本語.ts', 'd2/🙂.md']) {
      fs.writeFileSync(path.join(root, name), name)
      paths.push(name)
    }
    // A view into a bigger buffer, as a loaded state file's section is: it must stay the caller's.
    const file = Buffer.concat([
      Buffer.from('header\n'),
      Buffer.from(paths.join('\0'), 'utf8'),
      Buffer.from('rest'),
    ])
    const encoded = file.subarray(7, file.length - 4)
    expect(await statFiles(root, paths, { parallelMinFiles: 1, encoded })).toEqual(expected(root, paths))
    expect(file.toString('utf8', 0, 7)).toBe('header\n')
    expect(encoded.toString('utf8').split('\0')).toEqual(paths)
    // The helper stats what the bytes name (which is why they must be the paths' own bytes).
    const renamed = Buffer.from([...paths.slice(1), paths[0]].join('\0'), 'utf8')
    const shifted = await statFiles(root, paths, { parallelMinFiles: 1, encoded: renamed })
    expect(shifted).toEqual(expected(root, [...paths.slice(1), paths[0]]))
    // Bytes that do not hold as many paths: the helper answers nothing, and this thread stats them.
    const wrong = Buffer.from(paths.slice(1).join('\0'), 'utf8')
    expect(await statFiles(root, paths, { parallelMinFiles: 1, encoded: wrong })).toEqual(
      expected(root, paths),
    )
  })

  it('shares the paths between the helpers and the calling thread when the caller waits', async () => {
    const { root, paths } = tree()
    const many = Array.from({ length: 50 }, () => paths).flat()
    const want = expected(root, many)
    // Helper chunks of 7 paths, so that chunk bounds fall on failing paths too.
    const here = vi.spyOn(fs, 'statSync')
    try {
      const out = await statFiles(root, many, { parallelMinFiles: 1, shared: true, chunkFiles: 7 })
      expect(out).toEqual(want)
      // This thread took paths from the end, 64 at a time; the helpers' first chunks were theirs.
      expect(here.mock.calls.length).toBeGreaterThan(0)
      expect(here.mock.calls.length).toBeLessThan(many.length)
      expect(here.mock.calls[0][0]).toBe(`${root}/${many[many.length - 64]}`)
    } finally {
      here.mockRestore()
    }
    // Fewer paths than one chunk: the helper takes it, this thread has none left.
    expect(await statFiles(root, paths.slice(0, 5), { parallelMinFiles: 1, shared: true })).toEqual(
      expected(root, paths.slice(0, 5)),
    )
  })

  it('shares the rest with this thread when a helper answers nothing, and offers it no more', async () => {
    const { root, paths } = tree()
    const many = Array.from({ length: 50 }, () => paths).flat()
    // The helpers are running (made by a call of their own), then cannot be sent anything.
    expect(await statFiles(root, paths, { parallelMinFiles: 1 })).toEqual(expected(root, paths))
    const post = vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(() => {
      throw new Error('could not clone the message')
    })
    try {
      const out = await statFiles(root, many, { parallelMinFiles: 1, shared: true, chunkFiles: 7 })
      expect(out).toEqual(expected(root, many))
      // Each helper was offered one chunk of ~300, which this thread then stat'ed itself.
      expect(post.mock.calls.length).toBeGreaterThan(0)
      expect(post.mock.calls.length).toBeLessThanOrEqual(2)
    } finally {
      post.mockRestore()
    }
    // The helpers were never broken: the next call goes to them again.
    expect(await statFiles(root, many, { parallelMinFiles: 1, shared: true, chunkFiles: 7 })).toEqual(
      expected(root, many),
    )
  })

  it('answers undefined at once when stopped, and the helpers answer the next call rightly', async () => {
    const { root, paths } = tree()
    // Many paths, so the helpers are still at it when the stop comes.
    const many = Array.from({ length: 200 }, () => paths).flat()
    const stop = new AbortController()
    const stopped = statFiles(root, many, { parallelMinFiles: 1, signal: stop.signal })
    stop.abort()
    expect(await stopped).toBeUndefined()
    const before = new AbortController()
    before.abort()
    expect(await statFiles(root, many, { parallelMinFiles: 1, signal: before.signal })).toBeUndefined()
    // The abandoned answers arrive later and are dropped; this call gets its own.
    expect(
      await statFiles(root, paths, { parallelMinFiles: 1, signal: new AbortController().signal }),
    ).toEqual(expected(root, paths))
  })

  it('gives the same answer on the background helpers, which run at a lower priority', async () => {
    const { root, paths } = tree()
    expect(await statFiles(root, paths, { parallelMinFiles: 1, background: true })).toEqual(
      expected(root, paths),
    )
    if (!fs.existsSync('/proc/thread-self')) return // the priority is Linux's alone
    // Field 19 of a thread's stat is its nice value (after the name in parentheses: field 17).
    const nice = fs
      .readdirSync('/proc/self/task')
      .map((tid) => fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'))
      .map((line) => Number(line.slice(line.lastIndexOf(')') + 2).split(' ')[16]))
    expect(nice.filter((n) => n === 10).length).toBeGreaterThanOrEqual(1)
  })
})
