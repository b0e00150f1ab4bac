import { describe, expect, it } from 'vitest'
import { describeOption, normalise, optionNames, options, resolveLong } from './options'

const GNU = options({
  long: 'recursive force block-size= color=? compress-program= output= pre pre-glob= pretty',
  short: 'r R f o= x v z',
})

const names = (args: string[], table = GNU) => [...optionNames(args, table)].sort()

describe('option normaliser', () => {
  it('expands a unique prefix of a long option to the option', () => {
    expect(names(['--rec', '--for'])).toEqual(['--force', '--recursive'])
    expect(names(['--compress-prog=sh'])).toEqual(['--compress-program'])
    expect(resolveLong('recursive', GNU)).toEqual(['recursive'])
  })

  it('counts an ambiguous prefix as every option it could mean', () => {
    expect(names(['--pr'])).toEqual(['--pre', '--pre-glob', '--pretty'])
    const parsed = normalise(['--pr', 'x'], GNU)
    // An ambiguous option never takes the next word: getopt would refuse it.
    expect(parsed.operands).toEqual(['x'])
    expect(describeOption(parsed.options[0], '--pre')).toBe('`--pr` (could be --pre)')
  })

  it('prefers an exact name to the longer options it prefixes', () => {
    expect(names(['--pre'])).toEqual(['--pre'])
  })

  it('splits `=` values and takes a required value from the next word', () => {
    expect(normalise(['--output=out.txt', 'a'], GNU)).toEqual({
      options: [{ raw: '--output=out.txt', names: ['--output'], value: 'out.txt', unknown: false }],
      operands: ['a'],
      operandsFrom: 2,
    })
    expect(normalise(['--out', 'f', 'a'], GNU).options[0]).toMatchObject({ names: ['--output'], value: 'f' })
    // An optional value is only ever glued on.
    expect(normalise(['--color', 'a'], GNU).operands).toEqual(['a'])
  })

  it('expands combined short flags and stops a cluster at a value-taking letter', () => {
    expect(names(['-rf'])).toEqual(['-f', '-r'])
    expect(names(['-xvf'])).toEqual(['-f', '-v', '-x'])
    const glued = normalise(['-rofile', 'a'], GNU)
    expect(glued.options.map((o) => [o.names[0], o.value])).toEqual([
      ['-r', undefined],
      ['-o', 'file'],
    ])
    expect(glued.operands).toEqual(['a'])
    expect(normalise(['-ro', 'file', 'a'], GNU).operands).toEqual(['a'])
  })

  it('reads everything after `--` as operands', () => {
    const parsed = normalise(['-r', '--', '-f', '--force'], GNU)
    expect(parsed.options.map((o) => o.names[0])).toEqual(['-r'])
    expect(parsed.operands).toEqual(['-f', '--force'])
  })

  it('reads options among operands unless the table stops at the first operand', () => {
    expect(names(['a', '--for', 'b'])).toEqual(['--force'])
    const wrapper = options({ long: 'signal=', short: 's=' }, { stopAtOperand: true })
    expect(normalise(['--sig', 'KILL', '5', 'rm', '-rf'], wrapper)).toMatchObject({
      operands: ['5', 'rm', '-rf'],
      operandsFrom: 2,
    })
  })

  it('marks options the table does not know', () => {
    expect(normalise(['--nope', '-q'], GNU).options.map((o) => [o.names[0], o.unknown])).toEqual([
      ['--nope', true],
      ['-q', true],
    ])
  })

  it('follows tables without abbreviations and with single-dash long options (Go, find)', () => {
    const go = options({ long: 'exec= o= run= v' }, { singleDashLong: true, abbreviations: false })
    expect(names(['-exec=sh', '--o', 'bin', '-run', 'X'], go)).toEqual(['-exec', '-o', '-run'])
    expect(names(['-exe', 'sh'], go)).toEqual(['-exe'])
    expect(normalise(['-run', 'X', 'pkg'], go).operands).toEqual(['pkg'])
  })
})
