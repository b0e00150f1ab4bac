import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (this file lives in `<root>/test`). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Recorded and synthesized model streams, kept in the repository (test/fixtures/model-streams,
 * with their sources and licences in SOURCES.md there) so a clean clone tests on its own.
 */
export const sharedFixturesDir = path.join(repoRoot, 'test', 'fixtures')

/** A recorded or synthesized model stream from `test/fixtures/model-streams/`. */
export function modelStreamFixture(name: string): string {
  return path.join(sharedFixturesDir, 'model-streams', name)
}
