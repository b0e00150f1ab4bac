import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { formFields } from '../../../shared/mcp-elicitation-form'
import { ElicitationCard, formContent } from './ElicitationCard'

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', default: 'Ada' },
    age: { type: 'integer' },
    tier: {
      type: 'string',
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'pro', title: 'Pro' },
      ],
    },
    ok: { type: 'boolean', default: true },
  },
  required: ['age'],
}

describe('elicitation card', () => {
  it('builds the form from the schema with its defaults, as plain text', () => {
    const html = renderToStaticMarkup(
      createElement(ElicitationCard, {
        question: {
          id: '1',
          server: 'crm',
          mode: 'form',
          message: '<b>Who</b> are you?',
          requestedSchema: schema,
        },
      }),
    )
    expect(html).toContain('&lt;b&gt;Who&lt;/b&gt; are you?')
    expect(html).toContain('value="Ada"')
    expect(html).toContain('<option value="pro">Pro</option>')
    expect(html).toContain('checked=""')
    expect(html).toContain('<span>age *</span>')
    // The approvals' own header and buttons (one owner), in the question's words and without Y/N.
    expect(html).toContain('class="approval-header"')
    expect(html).toMatch(
      /class="approval-button approval-button--primary" data-testid="mcp-elicit-accept"[^>]*>Submit</,
    )
    expect(html).toMatch(/data-testid="mcp-elicit-decline"[^>]*>Decline</)
    expect(html).toMatch(/data-testid="mcp-elicit-cancel"[^>]*>Cancel</)
    expect(html).not.toContain('approval-keys')
  })

  it('types the answers and names the first problem', () => {
    const fields = formFields(schema)
    expect(formContent(fields, { name: 'Ada', age: '', tier: '', ok: true })).toEqual({
      error: 'age: an answer is needed',
    })
    expect(formContent(fields, { name: 'Ada', age: '36', tier: 'pro', ok: false })).toEqual({
      content: { name: 'Ada', age: 36, tier: 'pro', ok: false },
    })
  })

  it('shows a URL question’s link only for http(s)', () => {
    const card = (url: string) =>
      renderToStaticMarkup(
        createElement(ElicitationCard, {
          question: { id: '2', server: 's', mode: 'url', message: 'Link', url },
        }),
      )
    expect(card('https://example.com/link')).toContain('href="https://example.com/link"')
    expect(card('javascript:alert(1)')).not.toContain('href=')
  })
})
