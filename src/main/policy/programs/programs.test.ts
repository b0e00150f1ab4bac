import { describe, expect, it } from 'vitest'
import { checkCommand, type Verdict } from '../policy'
import { isPlainSedScript } from './text'

const verdicts = async (lines: string[]) => {
  const out: Record<string, Verdict> = {}
  for (const line of lines) out[line] = (await checkCommand(line)).verdict
  return out
}
const all = (lines: string[], v: Verdict) => Object.fromEntries(lines.map((l) => [l, v]))

/*
 * Per program: the forbidden option as written, abbreviated, with `=`, and inside
 * a cluster of short flags — none may run unasked. Cases after Codex's
 * `is_safe_command.rs` tests (openai/codex, Apache-2.0): rg --pre/--hostname-bin/
 * -z, find -exec/-delete/-fprint*, git --output/-c core.pager, base64-style -oFILE.
 */
const NOT_ALLOWED: Record<string, string[]> = {
  rg: [
    'rg --pre sh foo',
    'rg --pre=sh foo',
    'rg --pr=sh foo',
    'rg --pre-glob "*.x" --pre ./x foo',
    'rg --hostname-bin=./x foo',
    'rg -z foo',
    'rg -iz foo',
    'rg --search-z foo',
  ],
  sort: [
    'sort -o out.txt in.txt',
    'sort --output=out.txt in.txt',
    'sort --out out.txt in.txt',
    'sort -ro out.txt in.txt',
    'sort -rooout.txt in.txt',
    'sort --compress-program=sh in.txt',
    'sort --compress-prog sh in.txt',
  ],
  find: [
    'find . -exec rm {} ;',
    'find . -execdir python3 {} ;',
    'find . -ok cat {} ;',
    'find . -delete',
    'find . --delete',
    'find . -fprint out.txt',
    'find . -fprintf out.txt "%p"',
    'find . -fls out.txt',
  ],
  uniq: ['uniq in.txt out.txt', 'uniq -c in.txt out.txt'],
  file: ['file -C -m magic', 'file --compile -m magic', 'file --comp -m magic', 'file -bC -m magic'],
  tree: ['tree -o out.txt', 'tree --output=out.txt', 'tree -aR -H .', 'tree -ao out.txt'],
  date: ['date -s "2020-01-01"', 'date --set=2020-01-01', 'date --se 2020', 'date -us 2020'],
  hostname: ['hostname evil', 'hostname -F /etc/x', 'hostname --fi=/etc/x'],
  sed: [
    'sed -i s/a/b/ f',
    'sed --in-place s/a/b/ f',
    'sed --in-pl=.bak s/a/b/ f',
    'sed -ni s/a/b/p f',
    'sed "s/a/b/e" f',
    'sed "s/a/b/w out" f',
    'sed "1e rm x" f',
    'sed -n "w out" f',
    'sed -f script.sed f',
    'sed -e p -e "r /etc/passwd" f',
  ],
  git: [
    'git log --output=out.txt',
    'git log --output out.txt',
    'git log --out=x',
    'git log --outp=x',
    'git diff --ext-diff',
    'git diff --ext',
    'git diff --output=x',
    'git show --textconv HEAD',
    'git show --textc HEAD',
    'git grep -O foo',
    'git grep -Ovim foo',
    'git grep --open-files-in-pager=vim foo',
    'git grep --open foo',
    'git grep -iO foo',
    'git blame --textconv f',
    'git -c core.pager=cat log',
    'git -ccore.pager=cat status',
    'git --config-env=core.pager=X log',
    'git --git-dir=/tmp/x/.git status',
    'git -C /tmp/other log',
    'git -C ../other log',
    'git branch -D feature',
    'git branch --del feature',
    'git branch --delete=x',
    'git branch -fd x',
    'git branch new-one',
    'git branch --set-upstream-to=origin/x',
    'git remote add x y',
  ],
  'npm/pnpm/yarn': [
    'npm test --script-shell=./evil.sh',
    'npm test --script-sh ./evil.sh',
    'npm run build --node-options=--require=./x.js',
    'pnpm test --userconfig=/tmp/x',
    'yarn build --reporter=/tmp/r.js',
  ],
  'code outside the project': [
    'npx vitest run /tmp/evil.test.ts',
    'npx vitest run --reporter=/tmp/r.js',
    'npm test -- ../other/x.test.js',
    'pytest /tmp/t.py',
    'pytest --rootdir=/tmp',
    'npx eslint -c /tmp/x.js src',
    'npx prettier --check --plugin=/tmp/p.js .',
    'go test /tmp/pkg',
    'cargo test --manifest-path=/tmp/Cargo.toml',
    'npx tsc --noEmit -p ../other',
  ],
  'test runners': [
    'npx vitest run --outputFile=/tmp/x.json',
    'npx jest --outputFile=../x.json',
    'npx tsc --noEmit --generateTrace /tmp/t',
    'npx tsc --noEmit --GENERATETRACE /tmp/t',
    'tsc --noEmit false',
    'tsc --noEmit -w',
    'npx eslint --fix src',
    'npx eslint --fi src',
    'npx eslint -o out.txt src',
    'npx eslint --output-file=out.txt src',
    'npx prettier --check --write .',
    'npx prettier --check -cw .',
    'pytest --basetemp=/',
    'pytest --basetemp /home',
    'pytest --basete=/',
    'pytest -p evil',
    'pytest -xp evil',
    'pytest --junitxml=/tmp/x.xml',
    'python3 -m pytest -o addopts=-pevil',
    'python -m pytest --override-ini=addopts=x',
  ],
  go: [
    'go test -exec ./evil ./...',
    'go test -exec=./evil ./...',
    'go test --exec=./evil ./...',
    'go build -toolexec=./evil ./...',
    'go vet -vettool=./evil ./...',
    'go build -o /usr/local/bin/x .',
    'go test -coverprofile=/tmp/c.out ./...',
    'go test -cpuprofile cpu.out ./...',
  ],
  cargo: [
    'cargo test --config target.x86_64-unknown-linux-gnu.runner=./evil',
    'cargo build --config \'build.rustc-wrapper="./evil"\'',
    'cargo clippy --fix',
    'cargo clippy --fix --allow-dirty',
    'cargo build --target-dir /tmp/t',
    'cargo check --manifest-path ../other/Cargo.toml',
    'cargo test -Zunstable-options',
  ],
  mvn: [
    'mvn test -f ../other/pom.xml',
    'mvn test --file=../pom.xml',
    'mvn test -s /tmp/settings.xml',
    'mvn test -DargLine=-javaagent:/tmp/x.jar',
    'mvn compile -Dexec.executable=sh',
  ],
  make: [
    'make test --eval="x:;rm -rf ~"',
    'make test --ev=x',
    'make test -E x',
    'make test -f other.mk',
    'make test --file=other.mk',
    'make test --makef=other.mk',
    'make test -sf other.mk',
    'make test SHELL=/tmp/evil',
    'make test CC=./evil',
    'make test deploy',
    'make test -C /tmp/x',
    'make -C /tmp/x test',
    'make -C ../x test',
    'make test -I /tmp/inc',
  ],
  ruff: ['ruff check --fix', 'ruff check --fi', 'ruff check --output-file=/tmp/x', 'ruff check -o x'],
  xargs: ['ls | xargs rg --pre=sh foo', 'ls | xargs rg foo', 'ls | xargs sort'],
}

describe('per-program rules', () => {
  for (const [program, lines] of Object.entries(NOT_ALLOWED)) {
    it(`${program}: options that run code or write files do not run unasked`, async () => {
      const got = await verdicts(lines)
      const allowed = Object.entries(got).filter(([, v]) => v === 'allow')
      expect(allowed).toEqual([])
    })
  }

  it('says which option, as written and as meant', async () => {
    expect((await checkCommand('rg --pr=./x foo')).reason).toBe(
      '`rg --pr=./x foo`: `rg` with `--pr=./x` (could be --pre) runs another program on every file it searches',
    )
    expect((await checkCommand('sort --compress-prog gzip x')).reason).toBe(
      '`sort --compress-prog gzip x`: `sort` with `--compress-prog` (--compress-program) runs another program',
    )
    expect((await checkCommand('make test SHELL=/tmp/evil')).reason).toBe(
      '`make test SHELL=/tmp/evil`: `make SHELL=/tmp/evil` overrides a variable, which can change every recipe',
    )
  })

  it('still runs the everyday forms unasked', async () => {
    const allowed = [
      'ls -la src',
      'cat README.md',
      'head -n 20 src/a.ts',
      'tail -f -n 5 log.txt',
      'wc -l src/*.ts',
      'grep -rn "TODO" src',
      'rg -n --glob "*.ts" foo src',
      'rg --pretty foo',
      'rg -i -C 3 foo',
      'find . -name "*.ts" -type f',
      'find src -maxdepth 2 | sort',
      'find . -name "*.ts" | sort -u | head',
      'sort -k 2 -n data.txt',
      'jq ".scripts" package.json',
      'jq -r --arg x 1 ".a" f.json',
      'diff -u a.txt b.txt',
      'sed -n 1,20p src/a.ts',
      "sed -n '/start/,/end/p' f",
      "sed 's/foo/bar/g' f",
      'sed --sandbox "w out" f',
      'git status --short',
      'git log --oneline -n 5',
      'git log -p --stat -- src',
      'git log --format=%H%x09%s --no-color',
      'git diff HEAD~1 -- src/a.ts',
      'git diff --cached --name-only',
      'git show HEAD --stat',
      'git branch -a',
      'git branch --list "feat*"',
      'git branch --show-current',
      'git branch -vv',
      'git rev-parse --abbrev-ref HEAD',
      'git ls-files src',
      'git blame -L 10,20 src/a.ts',
      'git grep -n foo',
      'git -C sub status',
      'npm test',
      'npm test -- --reporter=dot',
      'npm run test',
      'npm run build',
      'npm run lint',
      'npm run typecheck',
      'npm -s test',
      'pnpm test',
      'yarn test',
      'pnpm run lint --if-present',
      'yarn test --coverage',
      'pnpm test --run src/a.test.ts',
      'time npm test',
      'go test ./...',
      'go test -run TestX -v -count=1 ./pkg/...',
      'go vet ./...',
      'go build ./...',
      'go test -coverprofile=cover.out ./...',
      'cargo test',
      'cargo build --release',
      'cargo check --all-targets',
      'cargo clippy -- -D warnings',
      'cargo test --target-dir target/alt',
      'pytest',
      'pytest -x -q tests/test_a.py -k name',
      'python -m pytest -rfE',
      'python3 -m pytest tests',
      'make test',
      'make -s build',
      'make check lint',
      'tsc --noEmit',
      'npx tsc --noEmit -p tsconfig.node.json',
      'npx eslint src',
      'eslint src --max-warnings=0',
      'npx prettier --check src',
      'prettier --check .',
      'npx vitest run src/a.test.ts',
      'npx vitest run --reporter=json --outputFile.json=.report.json',
      'mvn -q test -Dtest=FooTest',
      'mvn compile -DskipTests',
      'ruff check src',
    ]
    expect(await verdicts(allowed)).toEqual(all(allowed, 'allow'))
  })

  it("keeps a program's rule when the user allows the program", async () => {
    const lists = { allow: ['tar', 'less', 'man', 'awk', 'rg', 'docker ps'] }
    const lines = {
      'tar xzf a.tgz': 'allow',
      'tar -tvf a.tar': 'allow',
      // A shell fed the archive's members (or a page, a file's lines) runs them: refused.
      'tar --to-command=sh -xf a.tar': 'deny',
      'tar --to-com=sh -xf a.tar': 'deny',
      'tar --to-command=./check.sh -xf a.tar': 'ask',
      'tar xIf ./evil a.tar': 'ask',
      'tar -cf a.tar --checkpoint=1 --checkpoint-action=exec=sh .': 'deny',
      'tar -cf a.tar --checkpoint=1 --checkpoint-action=exec=./progress.sh .': 'ask',
      'less README.md': 'allow',
      'less -o log.txt README.md': 'ask',
      'man ls': 'allow',
      'man -P sh ls': 'deny',
      'man --pag=sh ls': 'deny',
      'man -P cat ls': 'ask',
      "awk '{print $1}' f": 'allow',
      [`awk 'BEGIN{system("id")}'`]: 'ask',
      [`awk '{print | "sh"}' f`]: 'deny',
      [`awk '{print | "sort"}' f`]: 'ask',
      'awk -f prog.awk f': 'ask',
      'awk -lfoo 1 f': 'ask',
      'rg --pre=sh foo': 'deny',
      'rg --pre=./unzip.sh foo': 'ask',
      'docker ps -a': 'allow',
    }
    const got: Record<string, Verdict> = {}
    for (const line of Object.keys(lines)) got[line] = (await checkCommand(line, lists)).verdict
    expect(got).toEqual(lines)
  })

  it('reads sed scripts that only print or substitute as plain', () => {
    expect(
      ['1,5p', '$p', '10q', 's/a/b/g', 's|a|b|', '/x/d', 'p;p', '1!G;h;$!d', 'y/abc/xyz/'].every(
        isPlainSedScript,
      ),
    ).toBe(true)
    expect(
      ['w out', 's/a/b/w out', 's/a/b/e', 'e ls', '1r /etc/passwd', 'R f', 'W f', '{p}'].some(
        isPlainSedScript,
      ),
    ).toBe(false)
  })
})
