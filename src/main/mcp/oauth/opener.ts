import { spawn } from 'node:child_process'
import type { OpenUrl } from './flow'

/*
 * Showing an authorization URL: the system's opener (`open` on macOS, `start` on Windows,
 * `xdg-open` elsewhere) starts the user's browser; the URL is always printed too, for a machine
 * with no browser (over SSH, the user opens it elsewhere — the callback then needs that machine's
 * 127.0.0.1, so a tunnel: docs/mcp.md#sign-in-oauth).
 */

function openerCommand(url: string): [string, string[]] {
  if (process.platform === 'darwin') return ['open', [url]]
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
  return ['xdg-open', [url]]
}

/**
 * Opens the URL in the browser unless `browser` is false (or `STEPWISE_BROWSER=none`, for machines
 * where the system opener would start the wrong thing), and says so through `say`.
 */
export function systemOpener(
  say: (line: string) => void,
  browser = process.env.STEPWISE_BROWSER !== 'none',
): OpenUrl {
  return (url, server) => {
    say(
      `Sign in to MCP server "${server}" in your browser${browser ? '' : ' (open this URL)'}:\n  ${url.href}`,
    )
    if (!browser) return
    const [command, args] = openerCommand(url.href)
    try {
      const child = spawn(command, args, { detached: true, stdio: 'ignore' })
      child.on('error', () => say(`Could not start a browser (${command}); open the URL above yourself.`))
      child.unref()
    } catch {
      say(`Could not start a browser (${command}); open the URL above yourself.`)
    }
  }
}
