import fs from 'node:fs'
import path from 'node:path'
import { defaultDataDir } from '../../config/paths'
import { createDenyList } from '../../containment/denylist'
import { prefetchSavedState } from '../../snapshot/earlyState'
import { stateFileIn } from '../../snapshot/savedState'

/*
 * What the CLI's entry does before it loads the program: for `stepwise edit`, the
 * project's saved snapshot state is read and its stats started on a helper thread
 * (snapshot/earlyState.ts), so that they run during the ~0.35 s of module loading
 * instead of after it. Only light modules here: this file decides how early "early" is.
 */

/** `stepwise edit`'s project folder and data folder, read from the arguments as commander will read them. */
export function editTarget(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { repo: string; dataDir: string } | undefined {
  if (args[0] !== 'edit') return undefined
  const value = (name: string): string | undefined => {
    let found: string | undefined
    for (let i = 1; i < args.length && args[i] !== '--'; i++) {
      if (args[i] === name) found = args[++i]
      else if (args[i].startsWith(`${name}=`)) found = args[i].slice(name.length + 1)
    }
    return found
  }
  return {
    repo: path.resolve(value('--repo') ?? process.cwd()),
    dataDir: path.resolve(value('--data-dir') ?? defaultDataDir(env)),
  }
}

/**
 * Starts the baseline's stats for a `stepwise edit`; a head start only, so it never throws.
 * Says whether the project has a saved state to start from, so the session will not take a
 * first baseline of the whole tree; false for any other command.
 */
export function prefetchForEdit(args: readonly string[]): boolean {
  try {
    const target = editTarget(args)
    if (!target) return false
    const root = fs.realpathSync(target.repo)
    // The sandbox a session opens (createSandbox with no options) denies the default list.
    return prefetchSavedState(stateFileIn(target.dataDir, root, createDenyList().patterns), root)
  } catch {
    // Nothing saved, a folder that is not there: the session does it all itself and says why.
    return false
  }
}
