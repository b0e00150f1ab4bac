import { describe, expect, it } from 'vitest'
import { checkCommand, type Verdict } from './policy'

const verdicts = async (lines: string[]) => {
  const out: Record<string, Verdict> = {}
  for (const line of lines) out[line] = (await checkCommand(line)).verdict
  return out
}
const all = (lines: string[], v: Verdict) => Object.fromEntries(lines.map((l) => [l, v]))

describe('commands whose program is only known at run time', () => {
  const unresolvable = [
    '$CMD arg',
    '$X -rf /',
    '${X:-rm} -rf /',
    '"$X" foo',
    '$(echo rm) -rf /',
    '`echo rm` -rf /',
    "$'\\x6c\\x73' -la",
    "$'ls'",
    '{rm,-rf,/}',
    '/bin/r? -rf x',
    'echo "rm -rf /" | sh',
    'cat x | bash',
    'ls | tee f | dash',
    'bash <<< "rm -rf /"',
    'sh <<EOF\nrm -rf /\nEOF',
    "bash <<'EOF'\nls\nEOF",
    'sh < script.sh',
    'bash -s',
    'busybox sh',
    'busybox sh -s',
    'bash -i -c ls',
    'bash -c "$VAR"',
    'sh -c "$(cat x)"',
    'bash -c',
    'eval "$X"',
    'eval ls',
    'source ./x.sh',
    '. ./x.sh',
    'shopt -s expand_aliases; alias ls="rm -rf /"; ls',
    "alias x='rm -rf /'",
    'hash -p /tmp/evil ls',
    'enable -f ./x.so evil',
    'env -S "rm -rf /"',
    'env --split-string="rm -rf /"',
    'env --sp="ls"',
    'env $OPTS ls',
    'xargs --max-a 1 $X',
    'ls | xargs -I{} {} -rf /',
    'ls | xargs sh',
    'ls | xargs bash',
    'cat cmds.txt | xargs -I{} sh -c {}',
    "ls | xargs -i bash -c 'echo {}'",
    'ls | xargs -I% python3 -c %',
    'find . -exec $X {} ;',
    'find . -exec sh -c "$0" {} ;',
    'exec $X',
    'command $X',
    'builtin eval ls',
    'nohup $X &',
    'timeout 5 $X',
    'timeout --bogus 5 ls',
    'nice -n 5 $(echo rm) x',
    'stdbuf -oL $X',
    'setsid $X',
    'time $X',
    'trap "$X" EXIT',
    'watch $X',
    'cat x | python3',
    'cat x | python3 -',
    'cat x.js | node',
    'npx -c "$X"',
    'git -c alias.x="!rm -rf /" x',
    'git -c alias.st=push st',
    'git --config-env=core.pager=EVIL log',
    'git --exec-path=/tmp/evil status',
    'GIT_PAGER="$X" git log',
    'parallel rm ::: a b',
    'echo "unterminated',
    'fc -s',
  ]

  it('refuses each in every policy, telling the model to write the command plainly', async () => {
    expect(await verdicts(unresolvable)).toEqual(all(unresolvable, 'deny'))
    for (const line of unresolvable)
      expect((await checkCommand(line)).reason, line).toMatch(/write the command plainly/)
  })

  it('names what could not be known', async () => {
    expect((await checkCommand('$(echo rm) -rf /')).reason).toBe(
      '`$(echo rm) -rf /`: the command name `$(echo rm)` is only known at run time; write the command plainly: the program and its arguments literally, with no variable, substitution, eval, alias or script fed through a pipe',
    )
    expect((await checkCommand('ls | sh')).reason).toMatch(
      /^`sh` in `ls \| sh`: `sh` reads its commands from stdin \(a pipe, heredoc or here-string\); /,
    )
    expect((await checkCommand('xargs --max-a 1 $X')).reason).toMatch(
      /the command name `\$X` \(run by `xargs`\)/,
    )
  })

  it('unwraps wrappers whose command is written out, and judges that command', async () => {
    expect(
      await verdicts([
        'timeout 5 npm test',
        'timeout --sig KILL 5 npm test',
        'timeout -s KILL 5 rm -rf /',
        'timeout --sig KILL 5 rm -rf /',
        'env FOO=1 npm test',
        'env -u HOME npm test',
        'env --unset=HOME rm -rf x',
        'nice make test',
        'nice -n 5 cargo test',
        'nohup npm test',
        'stdbuf -oL npm test',
        'xargs --max-a 1 rm -rf',
        'xargs -n1 grep foo',
        'busybox rm -rf /',
        'exec rm -rf x',
        'command rm -rf x',
        'strace -f rm -rf x',
        'npx foo rm -rf x',
        'npm exec -- rm -rf x',
        'poetry run rm -rf x',
        'npx -c "rm -rf x"',
        'script -q -c "rm -rf x" /dev/null',
        'trap "rm -rf x" EXIT',
        'flock /tmp/l -c "git push"',
        'git -c core.pager="rm -rf ~" log',
        'GIT_PAGER="rm -rf ~" git log',
        'bash -c "ls" && bash -lc "git status"',
        'watch -n 1 git status',
        'find . -exec sh -c "rm -rf x" ;',
        'strace -f ls',
        'ssh host rm -rf /',
        'time -o out.txt npm test',
      ]),
    ).toEqual({
      'timeout 5 npm test': 'allow',
      'timeout --sig KILL 5 npm test': 'allow',
      'timeout -s KILL 5 rm -rf /': 'deny',
      'timeout --sig KILL 5 rm -rf /': 'deny',
      'env FOO=1 npm test': 'allow',
      'env -u HOME npm test': 'allow',
      'env --unset=HOME rm -rf x': 'deny',
      'nice make test': 'allow',
      'nice -n 5 cargo test': 'allow',
      'nohup npm test': 'allow',
      'stdbuf -oL npm test': 'allow',
      'xargs --max-a 1 rm -rf': 'deny',
      'xargs -n1 grep foo': 'allow',
      'busybox rm -rf /': 'deny',
      'exec rm -rf x': 'deny',
      'command rm -rf x': 'deny',
      'strace -f rm -rf x': 'deny',
      'npx foo rm -rf x': 'deny',
      'npm exec -- rm -rf x': 'deny',
      'poetry run rm -rf x': 'deny',
      'npx -c "rm -rf x"': 'deny',
      'script -q -c "rm -rf x" /dev/null': 'deny',
      'trap "rm -rf x" EXIT': 'deny',
      'flock /tmp/l -c "git push"': 'deny',
      'git -c core.pager="rm -rf ~" log': 'deny',
      'GIT_PAGER="rm -rf ~" git log': 'deny',
      'bash -c "ls" && bash -lc "git status"': 'allow',
      'watch -n 1 git status': 'allow',
      'find . -exec sh -c "rm -rf x" ;': 'deny',
      'strace -f ls': 'ask',
      'ssh host rm -rf /': 'deny',
      'time -o out.txt npm test': 'ask',
    })
  })

  it('still asks, not refuses, for literal code it cannot vet', async () => {
    const asked = [
      'bash script.sh',
      "python3 - <<'EOF'\nprint(1)\nEOF",
      'python3 -c "print(1)"',
      'node x.js',
      'awk "{print}" f',
    ]
    expect(await verdicts(asked)).toEqual(all(asked, 'ask'))
  })
})

describe('inline code of interpreters', () => {
  it('denies string literals that read as a deny-listed command', async () => {
    const denied = [
      `python3 -c 'import os; os.system("rm -rf ~")'`,
      `python3 -c 'import subprocess; subprocess.run(["rm", "-rf", "/"])'`,
      `node -e 'require("child_process").execSync("git push --force")'`,
      `perl -e 'system "sudo ls"'`,
      "ruby -e '`rm -rf x`'",
      `awk 'BEGIN{system("git push")}'`,
      `python3 - <<'EOF'\nimport os\nos.system("rm -rf /")\nEOF`,
      `python3 <<< 'import os; os.system("rm -rf x")'`,
    ]
    expect(await verdicts(denied)).toEqual(all(denied, 'deny'))
    const asked = [
      `python3 -c 'print("hello world")'`,
      `node -e 'console.log("rm me")'`,
      "awk '{print $1}' f",
    ]
    expect(await verdicts(asked)).toEqual(all(asked, 'ask'))
  })
})

describe('the deny list in any spelling', () => {
  it('reads abbreviations, `=` values, clusters, brace expansion and ANSI-C escapes', async () => {
    const denied = [
      'rm --rec --for x',
      'rm --recursive=x --force x',
      'rm -Rfv x',
      'rm -r --fo x',
      'rm {-rf,x}',
      "rm $'\\x2drf' x",
      "$'\\x72\\x6d' -rf /",
      'git reset --har',
      'git reset --hard=x',
      'git reset --merge',
      'git clean --for -d',
      'git clean -xdf',
      'git clean -d',
      'git -c clean.requireForce=false clean -d',
      'git --no-pager push --for',
      'git --git-dir=.git --work-tree=. push',
      'git --super-prefix=x push',
      'npm publ',
      'npm pu',
      'npm unpub x',
      'yarn npm publish',
      'poetry publish',
    ]
    expect(await verdicts(denied)).toEqual(all(denied, 'deny'))
    expect(
      await verdicts(['git clean -n', 'git clean --dry-run -d', 'npm un lodash', 'rm -r x', 'rm --dir x']),
    ).toEqual({
      'git clean -n': 'ask',
      'git clean --dry-run -d': 'ask',
      'npm un lodash': 'ask',
      'rm -r x': 'ask',
      'rm --dir x': 'ask',
    })
  })

  it('matches user deny patterns through abbreviations', async () => {
    const lists = { deny: ['git push --force', 'terraform apply -auto-approve', 'docker system prune --all'] }
    const got: Record<string, Verdict> = {}
    for (const line of [
      'git commit --amend',
      'terraform apply -auto-approve',
      'docker system prune --al',
      'docker system prune',
    ])
      got[line] = (await checkCommand(line, lists)).verdict
    expect(got).toEqual({
      'git commit --amend': 'ask',
      'terraform apply -auto-approve': 'deny',
      'docker system prune --al': 'deny',
      'docker system prune': 'ask',
    })
  })
})

describe('secrets named as operands', () => {
  it('refuses commands that read a secrets file, with the reason', async () => {
    const denied = [
      'cat .env',
      'cat ./config/.env.local',
      'head -5 .env.production',
      'cp .env x',
      'git show HEAD:.env',
      'git log -p -- .env',
      'grep KEY .env',
      'rg -f .env foo',
      'cat ~/.ssh/id_rsa',
      'base64 server.pem',
      'cat .npmrc',
      'tar czf x.tgz .netrc',
      'jq . --rawfile s cert.key f.json',
      'bash -c "cat .env"',
      'cat .e*',
      'cat *.pe?',
      'head id_*',
      'cat *.k[e]y',
    ]
    expect(await verdicts(denied)).toEqual(all(denied, 'deny'))
    expect((await checkCommand('cat .env')).reason).toBe(
      '`cat .env` names `.env`, a secrets file (.env); its contents stay out of the session',
    )
  })

  it('lets commands that only name them through', async () => {
    const fine = [
      'ls -la .env',
      'echo .env >> .gitignore',
      "rg -g '!.env' foo",
      'grep -r --exclude=.env foo .',
      'git rm --cached .env',
      'cat env.ts',
      'cat src/environment.ts',
    ]
    const got = await verdicts(fine)
    expect(Object.entries(got).filter(([, v]) => v === 'deny')).toEqual([])
  })
})
