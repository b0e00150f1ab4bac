import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { terminalElicit } from './elicit-prompt'

/** The terminal prompt for a server's question, fed through streams as a user would type. */
function run(answers: string[], interactive = true) {
  const input = new PassThrough()
  const output = new PassThrough()
  let printed = ''
  output.on('data', (d: Buffer) => (printed += d.toString()))
  const opened: string[] = []
  const elicit = terminalElicit({ input, output, interactive, openUrl: (u) => void opened.push(u.href) })
  // Each answer goes in once the prompt before it is out (readline reads line by line).
  let i = 0
  output.on('data', () => {
    if (i < answers.length && /: $/.test(printed)) input.write(`${answers[i++]}\n`)
  })
  return { elicit, printed: () => printed, opened }
}

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Your name' },
    age: { type: 'integer', default: 30 },
    color: { type: 'string', enum: ['red', 'green'], default: 'green' },
    subscribe: { type: 'boolean' },
  },
  required: ['name'],
}

describe('terminal elicitation', () => {
  it('asks each field, re-asks a bad answer, and leaves empty answers to the schema defaults', async () => {
    const t = run(['', '', 'Ada', 'old', '', '1', 'y'])
    const result = await t.elicit(
      { server: 'crm', mode: 'form', message: 'Who are you?', requestedSchema: schema },
      new AbortController().signal,
    )
    expect(result).toEqual({ action: 'accept', content: { name: 'Ada', color: 'red', subscribe: true } })
    expect(t.printed()).toContain('MCP server "crm" asks: Who are you?')
    expect(t.printed()).toContain('an answer is needed')
    expect(t.printed()).toContain('a whole number')
    expect(t.printed()).toContain('1) red  2) green; Enter: green')
  })

  it('declines or cancels when the user says so, and opens a URL only when asked to', async () => {
    const signal = new AbortController().signal
    expect(
      await run(['d']).elicit({ server: 's', mode: 'form', message: 'm', requestedSchema: schema }, signal),
    ).toEqual({
      action: 'decline',
    })
    const url = run(['y'])
    expect(
      await url.elicit(
        { server: 's', mode: 'url', message: 'Link your account', url: 'https://example.com/link' },
        signal,
      ),
    ).toEqual({ action: 'accept' })
    expect(url.opened).toEqual(['https://example.com/link'])
    expect(
      await run(['c']).elicit({ server: 's', mode: 'url', message: 'm', url: 'https://e.x/' }, signal),
    ).toEqual({
      action: 'cancel',
    })
  })

  it('without a terminal, declines and says which server asked what', async () => {
    const t = run([], false)
    const result = await t.elicit(
      { server: 'crm', mode: 'form', message: 'Who are you?', requestedSchema: schema },
      new AbortController().signal,
    )
    expect(result).toEqual({ action: 'decline' })
    expect(t.printed()).toBe(
      'stepwise: MCP server "crm" asked: Who are you?\n  Declined: there is no terminal to answer on. Run in a terminal, or in the app, to answer it.\n',
    )
  })
})
