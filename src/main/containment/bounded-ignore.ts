import ignore, { type Ignore, type Options, type TestResult } from 'ignore'

/**
 * An `ignore` matcher whose memory stays bounded. `ignore` keeps the answer for every path it
 * was ever asked about, and for each of that path's folders, for as long as the matcher lives;
 * the gate's deny list and the secrets list are asked about every listed file, so on a
 * 72,000-file tree they held ~300,000 answers (tens of MB of the session's heap: the largest
 * part of it after the index's rows). Here the matcher is made again from its patterns after
 * `TESTS_PER_CACHE` questions: answers about nearby paths (the folders of one listing) are
 * still reused, and a new matcher costs ~0.1 ms.
 */
const TESTS_PER_CACHE = 8192

export interface BoundedIgnore {
  test(rel: string): TestResult
  ignores(rel: string): boolean
}

export function boundedIgnore(patterns: string | readonly string[], options?: Options): BoundedIgnore {
  const make = (): Ignore => ignore(options).add(patterns)
  let matcher = make()
  let asked = 0
  const fresh = (): Ignore => {
    if (++asked > TESTS_PER_CACHE) {
      asked = 1
      matcher = make()
    }
    return matcher
  }
  return {
    test: (rel) => fresh().test(rel),
    ignores: (rel) => fresh().ignores(rel),
  }
}
