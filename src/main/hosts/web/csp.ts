// The Content-Security-Policy the web host sends with every HTML page: the one in
// src/renderer/index.html (its <meta> still applies too), with the WebSocket endpoint added to
// connect-src. csp.test.ts keeps the two in step.

const DIRECTIVES: ReadonlyArray<readonly [string, string]> = [
  ['default-src', "'self'"],
  ['script-src', "'self'"],
  ['style-src', "'self' 'unsafe-inline'"],
  ['worker-src', "'self' blob:"],
  ['font-src', "'self' data:"],
  ['img-src', "'self' data:"],
  ['connect-src', "'self'"],
  ['object-src', "'none'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
]

/** The policy, with `connectSources` (e.g. `ws://127.0.0.1:4000`) allowed besides 'self'. */
export function contentSecurityPolicy(connectSources: readonly string[]): string {
  return DIRECTIVES.map(([name, value]) =>
    name === 'connect-src' ? [name, value, ...connectSources].join(' ') : `${name} ${value}`,
  ).join('; ')
}
