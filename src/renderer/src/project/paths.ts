/** Path helpers for the folder field; paths come from the host, POSIX or Windows. */

function separatorOf(path: string): '/' | '\\' {
  return path.includes('\\') && !path.includes('/') ? '\\' : '/'
}

/** A folder with its separator at the end, so completion goes on inside it. */
export function withTrailingSep(path: string): string {
  if (path.endsWith('/') || path.endsWith('\\')) return path
  return path + separatorOf(path)
}

/** The last part of a path: "/home/me/app/" → "app". */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean)
  return parts[parts.length - 1] ?? path
}

/** The folder a path is in. */
export function parentOf(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '')
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'))
  const parent = cut <= 0 ? trimmed.slice(0, cut + 1) : trimmed.slice(0, cut)
  return parent
}

/** Whether `fs/complete` can say anything about it (an absolute path, or one from "~"). */
export function isCompletable(path: string): boolean {
  return path.startsWith('/') || path.startsWith('~') || /^[A-Za-z]:[\\/]/.test(path)
}
