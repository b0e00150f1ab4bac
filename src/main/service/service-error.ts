import fs from 'node:fs'
import path from 'node:path'

export class ServiceError extends Error {
  override name = 'ServiceError'
}

export function resolveProjectDir(repo: string): string {
  const dir = path.resolve(repo)
  let stat: fs.Stats
  try {
    stat = fs.statSync(dir)
  } catch {
    throw new ServiceError(`Folder not found: ${dir}. Check the path and try again.`)
  }
  if (!stat.isDirectory()) throw new ServiceError(`Not a folder: ${dir}. Open the project's folder instead.`)
  return fs.realpathSync(dir)
}
