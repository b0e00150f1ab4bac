import { describe, expect, it } from 'vitest'
import { checkCommand, type Verdict } from './policy'
import { readMakeCode } from './programs/make'

/*
 * What an option runs or writes is judged like the command line or redirect it
 * stands for: full-auto runs what asks, so the inner command must be refused
 * wherever the plain one is. Cases after GTFOBins (make, rg, sort, git, find,
 * tar, rsync, man, less, awk, sed, vim, xargs) and the allowlisted-command bypasses
 * reported to Claude Code (anthropics/claude-code#13371) and Codex CLI
 * (openai/codex `is_safe_command.rs` tests: rg --pre, find -exec, git -c).
 */

const verdicts = async (lines: string[], lists = {}) => {
  const out: Record<string, Verdict> = {}
  for (const line of lines) out[line] = (await checkCommand(line, lists)).verdict
  return out
}
const all = (lines: string[], v: Verdict) => Object.fromEntries(lines.map((l) => [l, v]))

/** Per program: the deny-listed command handed on, as written, abbreviated, glued and in a cluster. */
const REFUSED: Record<string, string[]> = {
  make: [
    "make test --eval='test: ; rm -rf victim'",
    "make --eval='x:;@rm -rf victim' test",
    "make test --ev='all: ; git push'",
    "make -s test -E '$(shell rm -rf victim)'",
    "make test --eval='X != rm -rf victim'",
    "make test --eval='test:\n\t-rm -rf victim'",
    // What make expands before the shell reads it cannot be known from the line.
    "make test --eval='test: ; $(CMD) victim'",
    "make test --eval='test: ; rm $@'",
    "make test --eval='$(eval test: ; rm -rf victim)'",
    "make test --eval='$(file >victim,x)'",
  ],
  rg: [
    'rg --pre rm x victim/keep.txt',
    'rg --pr=rm x',
    'rg --pre git x',
    'rg --pre=sh x',
    'rg --hostname-bin=reboot --hyperlink-format=default x',
    'rg --pre "$X" x',
  ],
  sort: [
    'sort -S 1b --compress-program=sh x',
    'sort --compress-prog=bash x',
    'sort -S 1b --compress-program=python3 x',
    'sort --out=/dev/sda x',
    'sort -o.env x',
    'sort --outp=id_rsa x',
  ],
  git: [
    "git grep --open-files-in-pager='rm -rf victim' x",
    "git grep -O'rm -rf victim' x",
    "git grep --open-files='git push' x",
    'git grep -Orm x',
    "git log --output='/dev/sda'",
    'git diff --out=.env',
    "git -c core.pager='rm -rf victim' log",
    "git -c core.sshCommand='rm -rf victim' fetch",
    "GIT_PAGER='rm -rf victim' git -p log",
  ],
  find: [
    'find . -exec rm -rf victim ;',
    'find . -execdir rm -fr {} +',
    "find . -ok sh -c 'rm -rf victim' ;",
    'find . -exec git push ;',
    'find . -fprint /dev/sda',
    'find . -fprin .env',
  ],
  xargs: [
    'echo -rf victim | xargs rm',
    'xargs -a list rm',
    'xargs -I{} git {} origin',
    'xargs -0 git',
    'xargs npm',
  ],
  tar: [
    "tar xf a.tar --to-command='rm -rf victim'",
    'tar xf a.tar --to-com=sh',
    "tar -I 'rm -rf victim' -xf a.tar",
    'tar xIf sh a.tar',
    "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='rm -rf victim' .",
    "tar -cf a.tar -F 'rm -rf victim' .",
    'tar --rsh-command=reboot -xf h:a.tar',
  ],
  rsync: [
    "rsync -e 'rm -rf victim' a h:b",
    'rsync --rsh=\'sh -c "rm -rf victim"\' a h:b',
    'rsync -e rm a h:b',
  ],
  man: ["man -P 'rm -rf victim' ls", 'man --pag=sh ls', "man -H'rm -rf victim' ls"],
  awk: [
    `awk 'BEGIN{system("rm -rf victim")}'`,
    `awk '{print | "rm -rf victim"}' f`,
    `awk 'BEGIN{"git push" | getline x}'`,
    `awk '{print | "sh"}' f`,
    `awk '{print > "/dev/sda"}' f`,
    `gawk '{print >> ".env"}' f`,
  ],
  sed: [
    "sed 'e rm -rf victim' f",
    "sed '1e git push' f",
    "sed 's/.*/rm -rf victim/e' f",
    "sed 'w /dev/sda' f",
    "sed 's/a/b/w .env' f",
  ],
  vim: [
    "vim -c '!rm -rf victim' f",
    "nvim '+!git push' f",
    'vim -c \'call system("x")\' f',
    "vi --cmd 'py3 x' f",
  ],
  go: ["go test -exec 'rm -rf' ./...", "go test -toolexec='git push' ./...", 'go vet -vettool=reboot ./...'],
  less: ['less -o/dev/sda f', 'less --log-file=.env f'],
  emacs: [`emacs --batch --eval '(shell-command "rm -rf victim")'`, `emacs -batch -ev '(x)'`],
  'through a runner': [
    'npx rg --pre rm x',
    'strace -f xargs rm',
    "strace -f make test --eval='t: ; rm -rf v'",
  ],
  uniq: ['uniq a /dev/sda', 'uniq a .env'],
  'run-time words': [
    'rm "$f"',
    'rm -f $FILES',
    'git $SUB origin',
    'git clean -n $X',
    'npm $CMD',
    'kill $(cat pid)',
    'X="-rf victim"; rm $X',
  ],
}

/** The same programs handing on something the deny list does not refuse: they ask (full-auto runs them). */
const ASKED = [
  "make test --eval='test: ; echo hi'",
  "make test --eval='test: ; @echo $$HOME'",
  "make test --eval='V := 1'",
  'rg --pre ./unzip.sh x',
  'sort --compress-program=gzip x',
  'sort --out=sorted.txt x',
  'git grep -O less x',
  'git grep -O x',
  'find . -name "*.o" -exec rm {} +',
  'find . -fprint list.txt',
  'xargs rm --',
  'xargs grep -l foo | xargs rm -f --',
  'tar xf a.tar --to-command=./check.sh',
  'rsync -e ssh a h:b',
  'man -P cat ls',
  `awk '{print > "out.txt"}' f`,
  "sed 's/a/b/w out.txt' f",
  "sed '1e date' f",
  'vim +10 f',
  "go test -exec 'echo' ./...",
  'rm -- "$f"',
  'kill $!',
  'git log $REF',
  'cp "$a" "$b"',
]

describe('what an option runs or writes', () => {
  for (const [program, lines] of Object.entries(REFUSED))
    it(`${program}: a deny-listed command handed on is refused like the plain one`, async () => {
      expect(await verdicts(lines)).toEqual(all(lines, 'deny'))
    })

  it('asks (never allows) when what is handed on is not refused', async () => {
    expect(await verdicts(ASKED)).toEqual(all(ASKED, 'ask'))
  })

  it('keeps everyday forms unasked', async () => {
    const lines = ['rg foo src', 'sort -n x', 'find . -name "*.ts"', "sed -n '1,5p' f", 'ls | xargs grep foo']
    expect(await verdicts(lines)).toEqual(all(lines, 'allow'))
  })

  it('says what was handed on and which rule refuses it', async () => {
    expect((await checkCommand("make test --eval='test: ; rm -rf victim'")).reason).toBe(
      "`rm -rf victim` in `make test --eval='test: ; rm -rf victim'` is on the deny list (rm -rf: recursive forced delete)",
    )
    expect((await checkCommand('echo -rf victim | xargs rm')).reason).toBe(
      '`xargs rm` in `echo -rf victim | xargs rm`: the words it is given when it runs could make it `rm -rf`, which is on the deny list; write them out, or put `--` before them',
    )
    expect((await checkCommand('sort --out=/dev/sda x')).reason).toBe(
      '`sort --out=/dev/sda x` is on the deny list (write to a disk device)',
    )
    expect((await checkCommand("make test --eval='test: ; rm $(X)'")).reason).toMatch(
      /`\$\(X\)` in a recipe is expanded by make before the shell reads it/,
    )
  })

  it("applies the user's deny list too", async () => {
    const lists = { deny: ['terraform apply'] }
    const lines = ["make test --eval='test: ; terraform apply'", 'xargs terraform', 'rg --pre terraform x']
    expect(await verdicts(lines, lists)).toEqual(all(lines, 'deny'))
    expect((await checkCommand('xargs terraform plan', lists)).verdict).toBe('ask')
  })

  it('treats a redirect the same as a write option', async () => {
    expect(await verdicts(['cat x > .env', 'cat x > /dev/sda', 'cat x > out.txt'])).toEqual({
      'cat x > .env': 'deny',
      'cat x > /dev/sda': 'deny',
      'cat x > out.txt': 'ask',
    })
  })
})

describe('readMakeCode', () => {
  it('finds recipes, shell calls and assignments', () => {
    expect(readMakeCode('test: ; rm -rf x')).toEqual({ lines: ['rm -rf x'], assignments: [] })
    expect(readMakeCode('a: b\n\t@echo $$HOME\n\t-false')).toEqual({
      lines: ['echo $HOME', 'false'],
      assignments: [],
    })
    expect(readMakeCode('X := $(shell date)\nY != id')).toEqual({
      lines: ['date', 'id'],
      assignments: ['X=${MAKE_EXPANSION}'],
    })
    expect(readMakeCode('t: SHELL = /bin/x')).toEqual({ lines: [], assignments: ['SHELL=/bin/x'] })
  })

  it('says when a recipe depends on what make expands', () => {
    expect(readMakeCode('t: ; echo $(X)').unknown).toMatch(/\$\(X\)/)
    expect(readMakeCode("t: ; echo '$<'").unknown).toMatch(/\$</)
    expect(readMakeCode('$(call f,x)').unknown).toMatch(/call/)
    expect(readMakeCode('t: ; echo $$x').unknown).toBeUndefined()
  })
})
