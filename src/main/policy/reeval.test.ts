import { describe, expect, it } from 'vitest'
import { checkCommand, type Verdict } from './policy'

const verdicts = async (lines: string[]) => {
  const out: Record<string, Verdict> = {}
  for (const line of lines) out[line] = (await checkCommand(line)).verdict
  return out
}
const all = (lines: string[], v: Verdict) => Object.fromEntries(lines.map((l) => [l, v]))

/*
 * Quoted text bash evaluates a second time. The `$[ … ]` line is the one Gemini CLI's
 * pull 25935 (google-gemini/gemini-cli, Apache-2.0) used to get past an `echo`
 * allow rule; the others are the same array-subscript evaluation reached through
 * every builtin and expansion that reads a name or an arithmetic expression
 * (checked against bash 5.2: each one runs the `touch`).
 */
describe('code hidden in text that bash evaluates again', () => {
  it('is refused wherever arithmetic, a name or ${x@P} evaluates it', async () => {
    const hidden = [
      "echo $[ x='a[$(touch FLAG)]', x ]",
      "test -v 'a[$(touch f)]'",
      "[ -v 'a[$(touch f)]' ]",
      "[[ -v 'a[$(touch f)]' ]]",
      "[[ 'a[$(touch f)]' -eq 0 ]]",
      "x='a[$(touch f)]'; echo $((x))",
      "x='a[`touch f`]'; echo $((x + 1))",
      'x="a[\\$(touch f)]"; echo $((x))',
      "x=$'a[\\x24(touch f)]'; echo $((x))",
      "echo $(( 'a[$(touch f)]' ))",
      "x='a[$(touch f)]'; (( x ))",
      "x='a[$(touch f)]'; let x",
      "x='a[$(touch f)]'; echo ${!x}",
      "printf -v 'a[$(touch f)]' %s y",
      "read 'a[$(touch f)]' <<< x",
      "declare 'a[$(touch f)]=1'",
      "unset 'a[$(touch f)]'",
      "x='$(touch f)'; echo ${x@P}",
      'x=$(cat notes.txt); echo ${x@P}',
    ]
    expect(await verdicts(hidden)).toEqual(all(hidden, 'deny'))
  })

  it('asks when arithmetic reads a value the line only learns at run time', async () => {
    const fromData = [
      'n=$(cat VERSION); echo $((n+1))',
      'read -r n < count.txt; echo $((n+1))',
      'n=$(wc -l < f); for ((i=0; i<n; i++)); do echo $i; done',
      'v=$(cat v.txt); [[ $v -gt 1 ]] && echo newer',
    ]
    expect(await verdicts(fromData)).toEqual(all(fromData, 'ask'))
  })

  it('still runs quoted `$(…)` that nothing evaluates, and arithmetic on literals', async () => {
    const plain = [
      "echo '$(pwd)' && echo $((1+2))",
      "printf '%s\\n' '$(x)'",
      "grep -n '$(' Makefile",
      "git log --format='%H $(x)' -n 1",
      'for ((i=0; i<3; i++)); do echo $i; done',
      'echo ${#HOME} ${HOME:-$(pwd)}',
      'test -f package.json && echo yes',
    ]
    expect(await verdicts(plain)).toEqual(all(plain, 'allow'))
  })

  it('asks for printf -v, which sets a variable such as PATH instead of printing', async () => {
    const sets = ['printf -v PATH %s ./bin; ls', 'printf -vPATH %s ./bin', "printf '-v' IFS x"]
    expect(await verdicts(sets)).toEqual(all(sets, 'ask'))
    expect(await verdicts(["printf '%s\\n' -v x"])).toEqual({ "printf '%s\\n' -v x": 'allow' })
  })
})
