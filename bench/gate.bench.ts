import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createGate } from '../src/main/containment/gate'
import { isMain, median, report, type BenchRow } from './util'

/*
 * The gate's cost per call (src/main/containment/gate.ts), on a small project of its own, against
 * what a reader did before it in the same run:
 *  - resolve: `gate.resolve(rel)` against `fs.realpathSync` + `fs.statSync` of the same path;
 *  - read: `gate.resolve` + `gate.read` (open without following, fstat, read, content check)
 *    against `fs.realpathSync` + `fs.readFileSync`;
 *  - a listed name: `gate.admitsName(rel)` (what a listing pays per file) against `fs.statSync`;
 *  - a search hit: `gate.admits(rel, { content: true })` (once per file with matches) against
 *    `fs.realpathSync` + `fs.statSync`.
 * Interleaved round by round, so the machine's load weighs on both alike. No big tree.
 */

const FILES = 200
const ROUNDS = 30

function makeProject(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-gate-bench-')))
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(root, 'src', `m${i % 10}`)
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i}\n`.repeat(40))
  }
  fs.writeFileSync(path.join(root, '.env'), 'KEY=1\n')
  return root
}

/** Median microseconds per call of each way, over every file, round by round. */
function perCall(rels: readonly string[], ways: Array<(rel: string) => unknown>): number[] {
  const times = ways.map(() => [] as number[])
  for (let round = 0; round < ROUNDS + 3; round++)
    for (const [w, fn] of ways.entries()) {
      const start = performance.now()
      for (const rel of rels) fn(rel)
      if (round >= 3) times[w].push(((performance.now() - start) * 1000) / rels.length)
    }
  return times.map(median)
}

export function benchGate(): BenchRow[] {
  const root = makeProject()
  try {
    const gate = createGate(root)
    const rels = Array.from({ length: FILES }, (_, i) => `src/m${i % 10}/f${i}.ts`)
    const abs = (rel: string) => path.join(root, rel)
    const read = (rel: string) => {
      const file = gate.resolve(rel)
      if ('error' in file) throw new Error(file.error)
      const r = gate.read(file, { maxBytes: 1024 * 1024 })
      if ('error' in r) throw new Error(r.error)
      return r.data
    }
    const [resolve, resolveRef, gateRead, plainRead, name, nameRef, hit, hitRef] = perCall(rels, [
      (rel) => gate.resolve(rel),
      (rel) => fs.statSync(fs.realpathSync.native(abs(rel))),
      read,
      (rel) => fs.readFileSync(fs.realpathSync.native(abs(rel))),
      (rel) => gate.admitsName(rel),
      (rel) => fs.statSync(abs(rel)),
      (rel) => gate.admits(rel, { content: true }),
      (rel) => fs.statSync(fs.realpathSync.native(abs(rel))),
    ])
    // Targets are absolute (a tool call costs milliseconds; the gate must stay a small part of it);
    // the ratio to the plain calls is what the gate adds, shown beside.
    const row = (n: string, ours: number, refName: string, reference: number, maxMs: number): BenchRow => ({
      name: `gate: ${n}`,
      unit: 'ms',
      ours: ours / 1000,
      refName,
      reference: reference / 1000,
      target: { maxAbs: maxMs },
      note: `${ours.toFixed(1)} µs per call vs ${reference.toFixed(1)} µs; median of ${ROUNDS} rounds over ${FILES} files`,
    })
    return [
      row('resolve a model path', resolve, 'realpath + stat', resolveRef, 0.2),
      row('resolve + read a 1 KB file', gateRead, 'realpath + readFile', plainRead, 0.5),
      row('judge a listed name', name, 'one stat', nameRef, 0.01),
      row('judge a search hit (links, names, content)', hit, 'realpath + stat', hitRef, 0.5),
    ]
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

if (isMain(import.meta)) report("gate: the cost of the gate's decision per call", benchGate())
