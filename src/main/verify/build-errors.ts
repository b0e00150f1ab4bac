import { relativeTo, stripAnsi } from './failures'

/*
 * Compiler and linter diagnostics read from build output (best effort): tsc
 * (`file(line,col): error TS…` and its pretty `file:line:col - error TS…`),
 * gcc/clang (`file:line:col: error: …`), go (`./file.go:line:col: …`), rustc
 * (`error[E…]: …` then ` --> file:line:col`) and ESLint's stylish format.
 */

export interface Diagnostic {
  file: string
  line?: number
  column?: number
  severity: 'error' | 'warning'
  message: string
}

const MAX_DIAGNOSTICS = 200

export function parseDiagnostics(output: string, root?: string): Diagnostic[] {
  const lines = stripAnsi(output).replace(/\r\n/g, '\n').split('\n')
  const out: Diagnostic[] = []
  const seen = new Set<string>()
  const add = (d: Diagnostic) => {
    const key = `${d.file}:${d.line}:${d.column}:${d.message}`
    if (seen.has(key) || out.length >= MAX_DIAGNOSTICS) return
    seen.add(key)
    out.push({ ...d, file: relativeTo(root, d.file) })
  }
  let eslintFile: string | null = null
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    let m = /^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+: .*)$/.exec(line)
    if (m) {
      add({ file: m[1], line: +m[2], column: +m[3], severity: severityOf(m[4]), message: m[5] })
      continue
    }
    m = /^(.+?):(\d+):(\d+) - (error|warning) (TS\d+: .*)$/.exec(line)
    if (m) {
      add({ file: m[1], line: +m[2], column: +m[3], severity: severityOf(m[4]), message: m[5] })
      continue
    }
    m = /^([^\s:][^:]*):(\d+):(\d+): (?:fatal )?(error|warning): (.*)$/.exec(line)
    if (m) {
      add({ file: m[1], line: +m[2], column: +m[3], severity: severityOf(m[4]), message: m[5] })
      continue
    }
    m = /^(\.?\/?[\w./-]+\.go):(\d+):(\d+): (.*)$/.exec(line)
    if (m) {
      add({ file: m[1], line: +m[2], column: +m[3], severity: 'error', message: m[4] })
      continue
    }
    m = /^(error|warning)(\[\w+\])?: (.*)$/.exec(line)
    if (m) {
      const where = lines
        .slice(i + 1, i + 4)
        .map((l) => /^\s*--> (.+?):(\d+):(\d+)$/.exec(l))
        .find(Boolean)
      if (where)
        add({
          file: where[1],
          line: +where[2],
          column: +where[3],
          severity: severityOf(m[1]),
          message: `${m[1]}${m[2] ?? ''}: ${m[3]}`,
        })
      continue
    }
    // ESLint stylish: a file path alone on a line, then "  line:col  error  message  rule".
    if (/^(\/|[A-Za-z]:\\|\.{0,2}\/?[\w@.-]+\/)[^\s]*\.\w+$/.test(line)) {
      eslintFile = line
      continue
    }
    m = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)(?:\s{2,}(\S+))?$/.exec(line)
    if (m && eslintFile) {
      add({
        file: eslintFile,
        line: +m[1],
        column: +m[2],
        severity: severityOf(m[3]),
        message: m[5] ? `${m[4]} (${m[5]})` : m[4],
      })
      continue
    }
    if (line.trim() === '') eslintFile = null
  }
  return out
}

/** One line per diagnostic: `src/x.ts(4,1): error TS2304: Cannot find name 'foo'.` style, kept short. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line ? `${d.file}:${d.line}${d.column ? `:${d.column}` : ''}` : d.file
  const message = d.message.startsWith(d.severity) ? d.message : `${d.severity} ${d.message}`
  return `${where}: ${message}`
}

/** The severity a compiler or linter printed (`error`, `fatal error`, `warning`). */
function severityOf(word: string): 'error' | 'warning' {
  return word === 'warning' ? 'warning' : 'error'
}
