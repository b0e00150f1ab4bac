import fs from 'node:fs'

/*
 * Reads a V8 CPU profile (`--cpu-prof`, BENCH_SCALE_PROFILE) and prints where the thread's time
 * went: self time per function and total (inclusive) time per function, the top rows of each.
 * `npx tsx bench/cpu-profile.ts <file.cpuprofile> [rows] [fromMs] [toMs]`
 */
interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
const [file, rowsArg, fromArg, toArg] = process.argv.slice(2)
const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
}
const rows = Number(rowsArg ?? 30)
const byId = new Map(prof.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`
const self = new Map<string, number>()
const total = new Map<string, number>()
let t = 0
const from = Number(fromArg ?? 0) * 1000
const to = Number(toArg ?? Infinity) * 1000
let sum = 0
prof.samples.forEach((id, i) => {
  const dt = prof.timeDeltas[i] ?? 0
  t += dt
  if (t < from || t > to) return
  sum += dt
  const n = byId.get(id)!
  self.set(label(n), (self.get(label(n)) ?? 0) + dt)
  const seen = new Set<string>()
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!)
    if (seen.has(l)) continue
    seen.add(l)
    total.set(l, (total.get(l) ?? 0) + dt)
  }
})
const top = (m: Map<string, number>) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([l, us]) => `${(us / 1000).toFixed(1).padStart(8)} ms  ${l}`)
console.log(`window ${(sum / 1000).toFixed(0)} ms of ${(t / 1000).toFixed(0)} ms\n-- self`)
console.log(top(self).join('\n'))
console.log('-- total')
console.log(top(total).join('\n'))

/* BENCH_PROFILE_TREE=<function name>: the call tree below it, inclusive ms, 6 levels deep. */
const focus = process.env.BENCH_PROFILE_TREE
if (focus) {
  const incl = new Map<number, number>()
  let tt = 0
  prof.samples.forEach((id, i) => {
    tt += prof.timeDeltas[i] ?? 0
    if (tt < from || tt > to) return
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      incl.set(cur, (incl.get(cur) ?? 0) + (prof.timeDeltas[i] ?? 0))
  })
  const merged = new Map<string, { ms: number; kids: Map<string, unknown> }>()
  const print = (id: number, depth: number, indent: string) => {
    const n = byId.get(id)!
    const ms = (incl.get(id) ?? 0) / 1000
    if (ms < Number(process.env.BENCH_PROFILE_MIN ?? 5)) return
    console.log(`${indent}${ms.toFixed(1)} ms ${label(n)}`)
    if (depth > 0) for (const c of n.children ?? []) print(c, depth - 1, indent + '  ')
  }
  void merged
  for (const n of prof.nodes)
    if (label(n).startsWith(focus)) print(n.id, Number(process.env.BENCH_PROFILE_DEPTH ?? 6), '')
}

/* BENCH_PROFILE_CALLERS=<label prefix>: who called it, inclusive ms per caller chain (4 up). */
const callersOf = process.env.BENCH_PROFILE_CALLERS
if (callersOf) {
  const chains = new Map<string, number>()
  let tt = 0
  prof.samples.forEach((id, i) => {
    tt += prof.timeDeltas[i] ?? 0
    if (tt < from || tt > to) return
    const stack: string[] = []
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      stack.push(label(byId.get(cur)!))
    const at = stack.findIndex((l) => l.startsWith(callersOf))
    if (at < 0) return
    const key = stack.slice(at + 1, at + 7).join(' < ')
    chains.set(key, (chains.get(key) ?? 0) + (prof.timeDeltas[i] ?? 0))
  })
  for (const [k, us] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(`${(us / 1000).toFixed(1)} ms ${k}`)
}

/* BENCH_PROFILE_TIMELINE=<ms>: per slice, the busiest frames just below the root (3 levels). */
const slice = Number(process.env.BENCH_PROFILE_TIMELINE ?? 0)
if (slice > 0) {
  const buckets = new Map<number, Map<string, number>>()
  let tt = 0
  prof.samples.forEach((id, i) => {
    tt += prof.timeDeltas[i] ?? 0
    const stack: string[] = []
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      stack.push(label(byId.get(cur)!))
    const interesting = stack
      .filter((l) => l.includes('chunks/') || l.includes('main/cli') || l.startsWith('('))
      .slice(-3)
    const key = interesting.reverse().slice(1).join(' > ') || stack[0]
    const b = Math.floor(tt / 1000 / slice)
    const m = buckets.get(b) ?? new Map<string, number>()
    m.set(key, (m.get(key) ?? 0) + (prof.timeDeltas[i] ?? 0))
    buckets.set(b, m)
  })
  for (const [b, m] of [...buckets].sort((a, c) => a[0] - c[0])) {
    console.log(`@${b * slice} ms`)
    for (const [k, us] of [...m].sort((a, c) => c[1] - a[1]).slice(0, 4))
      if (us > 5000) console.log(`   ${(us / 1000).toFixed(0)} ms ${k}`)
  }
}
