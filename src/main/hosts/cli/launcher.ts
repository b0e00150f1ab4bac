/**
 * The first two lines of the built `stepwise` CLI (out/main/cli.js), put there by the build
 * (electron.vite.config.ts). Run as a program (`stepwise` after `npm link` or a global install,
 * `npx`, `./out/main/cli.js`), the file is a shell script for one line: it starts Node on itself
 * with the allocator settings below, in the same process (`exec`). Run as `node cli.js`, Node skips
 * the first line and the second is a string and a comment, so the program runs as it is, without
 * them.
 *
 * Why the settings: glibc gives each thread that allocates an arena of its own, and an arena keeps
 * what it freed. A first baseline's two read helpers (snapshot/readThreads.ts) each left ~50 MB of
 * arena behind them at the session's peak, little of it live; one arena for the process took a
 * first session on the 85,000-file bench tree from 362–375 MB to 320–330 MB at its peak and later
 * sessions from 183–198 MB to 171–182 MB, at the same speed (five alternated rounds of three
 * sessions, docs/benchmarks.md). And fixed thresholds: glibc otherwise raises the size it maps
 * apart, and the free memory it keeps at the heap's top, to the largest mapped block freed so far
 * (a 24 MB file read whole: every block under 24 MB then comes from the heap, which returns nothing
 * under 48 MB free). Blocks of 4 MB and more mapped apart, 8 MB kept: first sessions peaked at a
 * median of 311 MB against 318 (five alternated each). And transparent huge pages for what malloc
 * maps (`glibc.malloc.hugetlb=1`, glibc 2.35 and later; Linux's default THP mode, `madvise`, gives
 * them only to memory that asks): on the 2-core VMs this is measured on, a first touch of a fresh
 * 4 KB page costs ~13 µs (7 MB written the first time 22 ms, again 0.3 ms), and a tiny repo's
 * session took ~29,800 such faults, 0.3–0.45 s of system time. With the tunable ~20,300, the first
 * request 980 → 928 ms (ten alternated rounds), peak RSS within 1–5 MB (docs/benchmarks.md). glibc
 * reads these only when a process starts, so they cannot be set from inside it. A value the user
 * set is kept; other allocators (macOS, musl) and older glibc ignore the names. Commands the agent
 * runs never see them (sandboxing/env.ts passes an allowlist).
 */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '1',
  MALLOC_MMAP_THRESHOLD_: String(4 * 1024 * 1024),
  MALLOC_TRIM_THRESHOLD_: String(8 * 1024 * 1024),
  GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1',
}

/**
 * The header: a POSIX `sh` line that is also valid JavaScript — `':' //` is `:` (do nothing) to
 * the shell and a string followed by a comment to Node.
 */
export function launcherHeader(): string {
  const settings = Object.entries(ALLOCATOR_ENV)
    .map(([name, value]) => `${name}="\${${name}:-${value}}"`)
    .join(' ')
  return `#!/bin/sh\n':' //; exec env ${settings} node "$0" "$@"`
}
