import type React from 'react'

/**
 * A rule's description (shared/approval-rules.ts writes command words between backticks, as the CLI
 * prints them): the quoted parts become code instead of showing their backticks.
 */
export function RuleText({ text }: { text: string }): React.JSX.Element {
  const parts = text.split('`')
  // An odd count of backticks leaves the last part unquoted: show it as written.
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 && i < parts.length - 1 ? <code key={i}>{part}</code> : <span key={i}>{part}</span>,
      )}
    </>
  )
}
