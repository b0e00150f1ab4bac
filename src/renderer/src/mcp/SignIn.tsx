import type React from 'react'
import { plainText } from './model'
import { signInMcp, signOutMcp, useMcpUi } from './mcpState'
import type { McpServerView } from './types'

/*
 * Sign-in (OAuth) for an HTTP server: the error a 401 produces with its "Sign in" button, the
 * link to the sign-in page while the browser step waits, and "Sign out" once signed in.
 */

export function SignInButton({ server }: { server: McpServerView }): React.JSX.Element | null {
  const busy = useMcpUi((s) => s.busy)
  if (server.transport !== 'http') return null
  if (server.signedIn)
    return (
      <button
        type="button"
        className="ui-button small"
        aria-label={`Sign out of ${server.name}`}
        data-testid="mcp-sign-out"
        disabled={Boolean(busy[`signout:${server.name}`])}
        onClick={() => void signOutMcp(server.name)}
      >
        Sign out
      </button>
    )
  return (
    <button
      type="button"
      className="ui-button small"
      aria-label={`Sign in to ${server.name}`}
      data-testid="mcp-sign-in"
      disabled={!server.enabled || Boolean(busy[`signin:${server.name}`])}
      onClick={() => void signInMcp(server.name)}
    >
      Sign in
    </button>
  )
}

/** The 401's message with the way out, and the sign-in page's link while the browser step waits. */
export function SignInNotice({ server }: { server: McpServerView }): React.JSX.Element | null {
  const url = useMcpUi((s) => s.signInUrls[server.name])
  return <SignInNoticeView server={server} url={url} />
}

export function SignInNoticeView({
  server,
  url,
}: {
  server: McpServerView
  url?: string
}): React.JSX.Element | null {
  if (url)
    return (
      <p className="mcp-signin" role="status" data-testid="mcp-signin-waiting">
        Finish signing in in your browser. No browser opened?{' '}
        <a href={url} target="_blank" rel="noreferrer noopener" data-testid="mcp-signin-link">
          Open the sign-in page
        </a>
      </p>
    )
  if (server.state !== 'needs-sign-in') return null
  return (
    <div className="mcp-error mcp-signin-needed" role="status" data-testid="mcp-error">
      <span>{plainText(server.error ?? `${server.name} needs sign-in.`)}</span>
      <SignInButton server={server} />
    </div>
  )
}
