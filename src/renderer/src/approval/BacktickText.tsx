import type React from 'react'

/**
 * Text from the core that quotes command words between backticks, as the CLI prints them (a rule's
 * description, why a command asks): the quoted parts become code instead of showing their backticks.
 */
export function BacktickText({ text }: { text: string }): React.JSX.Element {
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
