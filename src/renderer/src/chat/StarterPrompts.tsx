import type React from 'react'
import { setDraft } from './draft'

/** Ways to begin, for an empty chat: each puts its text in the message box to edit before sending. */
const STARTERS = [
  'Explain how this project is organised and where to start reading.',
  'Run the tests and fix what fails.',
  'Review the last commit and point out anything risky.',
  'Add a test for the most important function that has none.',
]

export function StarterPrompts(): React.JSX.Element {
  return (
    <ul className="starter-prompts" aria-label="Starter prompts" data-testid="starter-prompts">
      {STARTERS.map((text) => (
        <li key={text}>
          <button type="button" className="starter-prompt" onClick={() => setDraft(text)}>
            {text}
          </button>
        </li>
      ))}
    </ul>
  )
}
