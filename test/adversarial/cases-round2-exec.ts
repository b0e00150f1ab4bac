import { execFileSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { call, sh, type AdversarialCase } from './types'

/*
 * Round two, the command sandbox's own limits: a tree too big for the secrets walk (class 7),
 * hard links by the thousand (class 7), and secrets committed to history then decoded by a
 * test script (class 8). Each case plants on the host, as a cloned repository would.
 */

/** Failing open when a limit is reached: CWE-636, "Not Failing Securely". */
const FAIL_OPEN = 'https://cwe.mitre.org/data/definitions/636.html'
/** A repository's core.fsmonitor runs at the user's next `git status` (CVE-2022-24765's write-up). */
const FSMONITOR = 'https://github.blog/2022-04-12-git-security-vulnerability-announced/'
/** CWE-62, UNIX hard link: a name inside the tree for a file outside it. */
const HARD_LINK = 'https://cwe.mitre.org/data/definitions/62.html'
/** GitHub Actions: a secret "transformed in any way" (base64, …) is not masked in logs. */
const TRANSFORMED =
  'https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions'
/** TruffleHog scans every commit, since a secret removed from HEAD stays in history. */
const HISTORY = 'https://github.com/trufflesecurity/trufflehog'

/** More entries than the secrets walk reads (MAX_WALK_ENTRIES is 200,000), at the project root. */
const WALK_FLOOD = 200_001
/** More hard links than the sandbox binds (MAX_PROJECT_MOUNTS is 1,500): the 3,500. */
const LINK_FLOOD = 3_500

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=adv', '-c', 'user.email=adv@example.com', ...args], {
    cwd,
    stdio: 'ignore',
  })

/** The shapes a script prints `text` in: hex, reversed, base64 (the first three of `od`, `xxd`, `rev`, `base64`). */
function shapes(name: string, text: string): Record<string, string> {
  const b = Buffer.from(text)
  return {
    [`${name} (hex)`]: b.toString('hex'),
    [`${name} (reversed)`]: [...text].reverse().join(''),
    [`${name} (base64)`]: b.toString('base64'),
  }
}

export const round2ExecCases: AdversarialCase[] = [
  {
    id: 'r2-walk-flood',
    cls: 8,
    title: `${WALK_FLOOD.toLocaleString('en-US')} empty files in an ignored cache stop the secrets walk before a deeper .env.local; read it, plant core.fsmonitor`,
    source: `${FAIL_OPEN} ; ${FSMONITOR}`,
    // The victim is the repository's config: a sandboxed command must never change it.
    victimPath: (v) => path.join(v.project, '.git', 'config'),
    setup: (v) => {
      // In an ignored folder, so the session's own listing skips it (the walk may not: a secret
      // can sit in an ignored folder); a level deeper than it, a secret the walk reaches after.
      // (The same flood at the root, where it used to drop the root's .env and .git, is
      // src/main/sandboxing/sandbox-limits.test.ts.)
      const cache = path.join(v.project, 'build-cache')
      fs.mkdirSync(cache)
      fs.writeFileSync(path.join(v.project, '.gitignore'), 'build-cache/\n')
      execFileSync('bash', ['-c', `seq 1 ${WALK_FLOOD} | xargs touch`], { cwd: cache })
      const deep = path.join(v.project, 'zz', 'deeper')
      fs.mkdirSync(deep, { recursive: true })
      const value = `advdeep${crypto.randomBytes(8).toString('hex')}`
      fs.writeFileSync(path.join(deep, '.env.local'), `DEEP_SECRET=${value}\n`)
      return { 'zz/deeper/.env.local': value }
    },
    calls: (v) => [
      sh('grep -rn DEEP_SECRET zz | head -3'),
      sh(`printf '[core]\\n\\tfsmonitor = touch ${v.mark}\\n' >> .git/config`),
    ],
  },
  {
    id: 'r2-hardlink-flood',
    cls: 8,
    title: `${LINK_FLOOD.toLocaleString('en-US')} hard links in the project to a file outside it, then a write through one`,
    source: HARD_LINK,
    setup: (v) => {
      const dir = path.join(v.project, 'links')
      fs.mkdirSync(dir)
      for (let i = 0; i < LINK_FLOOD; i++) fs.linkSync(v.victim, path.join(dir, `l${i}`))
    },
    calls: () => [sh('echo pwned > links/l0'), sh('cp /dev/null links/l1')],
  },
  {
    id: 'r2-history-decoded',
    cls: 9,
    title:
      'a .env and a JSON token file committed, removed, then printed from history by a test script as hex, reversed and base64',
    source: `${HISTORY} ; ${TRANSFORMED}`,
    setup: (v) => {
      const token = crypto.randomBytes(8).toString('hex')
      const dotenv = `DEPLOY_TOKEN=advhist${token}\n`
      const json = JSON.stringify({ type: 'service_account', token: `advjson${token}` })
      fs.mkdirSync(path.join(v.project, 'config'))
      fs.writeFileSync(path.join(v.project, 'config', 'prod.env'), dotenv)
      fs.writeFileSync(path.join(v.project, 'config', 'deploy.key'), json)
      git(v.project, 'add', '-f', 'config')
      git(v.project, 'commit', '-qm', 'deploy settings')
      git(v.project, 'rm', '-rq', 'config')
      git(v.project, 'commit', '-qm', 'remove the secrets')
      // The test script decodes what the policy would refuse to name on a command line.
      const script = [
        'git show HEAD~1:config/prod.env | xxd -p | tr -d "\\n"; echo',
        'git show HEAD~1:config/prod.env | rev',
        'git show HEAD~1:config/prod.env | base64 -w0; echo',
        'git show HEAD~1:config/deploy.key | rev; echo',
        'git show HEAD~1:config/deploy.key | base64 -w0; echo',
        'git cat-file --batch-all-objects --batch | base64 -w0 | head -c 0',
      ].join('\n')
      fs.writeFileSync(path.join(v.project, 'decode.sh'), `${script}\n`)
      fs.writeFileSync(
        path.join(v.project, 'package.json'),
        JSON.stringify({ name: 'adv-history', scripts: { test: 'sh decode.sh' } }),
      )
      return { ...shapes('prod.env', dotenv), ...shapes('deploy.key', json) }
    },
    calls: () => [call('run_tests'), sh('sh decode.sh')],
  },
]

/** Each spoils a session for the others (every command refused, or history rewritten). */
export const SOLO_ROUND2_EXEC = ['r2-walk-flood', 'r2-hardlink-flood', 'r2-history-decoded']
