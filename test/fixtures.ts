import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (this file lives in `<root>/test`). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** Shared fixtures live beside the repository, at `<root>/../shared/fixtures`. */
export const sharedFixturesDir = path.resolve(repoRoot, '..', 'shared', 'fixtures')

/** A recorded or synthesized model stream from `shared/fixtures/model-streams/`. */
export function modelStreamFixture(name: string): string {
  return path.join(sharedFixturesDir, 'model-streams', name)
}
