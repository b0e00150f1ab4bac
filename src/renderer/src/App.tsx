import type React from 'react'

/** Placeholder until the desktop UI lands: says what the app is and what works today. */
export function App(): React.JSX.Element {
  return (
    <main className="placeholder" data-testid="app-root">
      <div className="card">
        <div className="mark" aria-hidden="true">
          <span />
          <span />
          <span />
        </div>
        <h1>Stepwise</h1>
        <p className="version" data-testid="app-version">
          version {__APP_VERSION__}
        </p>
        <p className="tagline">A coding agent you can see and steer.</p>
        <p>The desktop interface is coming: every step on a timeline, every change a diff you approve.</p>
        <p>The command line works today:</p>
        <pre className="command">
          <code>stepwise edit &quot;add input validation to the signup form&quot;</code>
        </pre>
        <p className="hint">
          Run <code>npx stepwise --help</code> in a terminal for the full list of commands.
        </p>
      </div>
    </main>
  )
}
