import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { HOME_CREDENTIALS, SECRET_FILE_NAMES, createDenyList } from '../containment/denylist'
import { checkCommand, type Verdict } from './policy'
import { isSecretName } from '../containment/denylist'

/*
 * Credentials in a home, named however bash lets a command name them. Inside the sandbox the
 * empty $HOME hides them; with the sandbox off (`allowUnsandboxed`, `sandbox: "off"`) the policy
 * is all there is, so each must be refused by name. Runs as root and as an unprivileged user
 * (the home differs: `/root`, `/home/<user>`, a throwaway $HOME).
 */

const verdicts = async (lines: string[], root?: string) => {
  const out: Record<string, Verdict> = {}
  for (const line of lines) out[line] = (await checkCommand(line, {}, { root })).verdict
  return out
}
const all = (lines: string[], v: Verdict) => Object.fromEntries(lines.map((l) => [l, v]))
const home = os.homedir()

describe('home credentials named in a command', () => {
  it('refuses each credential file of the review, as ~ spells it', async () => {
    // The files each tool's docs name as where it keeps its tokens (see HOME_CREDENTIALS).
    const lines = [
      'cat ~/.ssh/id_rsa',
      'cat ~/.ssh/id_ed25519',
      'cat ~/.ssh/id_ecdsa_sk',
      'cat ~/.docker/config.json',
      'cat ~/.kube/config',
      'cat ~/.git-credentials',
      'cat ~/.netrc',
      'cat ~/.npmrc',
      'cat ~/.pypirc',
      'cat ~/.config/gh/hosts.yml',
      'cat ~/.codex/auth.json',
      'cat ~/.claude/.credentials.json',
      'cat ~/.aws/credentials',
      'cat ~/.cargo/credentials.toml',
      'cat ~/.yarnrc.yml',
    ]
    expect(await verdicts(lines)).toEqual(all(lines, 'deny'))
    expect((await checkCommand('cat ~/.kube/config')).reason).toBe(
      '`cat ~/.kube/config` names `~/.kube/config`, a secrets file (~/.kube); its contents stay out of the session',
    )
  })

  it('refuses them however the home is spelled: $HOME, ${HOME}, quoted, the literal path, ~user, ..', async () => {
    const lines = [
      'cat $HOME/.aws/credentials',
      'cat "${HOME}"/.aws/credentials',
      'cat "$HOME/.config/gh/hosts.yml"',
      `cat ${home}/.aws/credentials`,
      `cat ${home}/.yarnrc.yml`,
      'cat /root/.aws/credentials',
      'cat /root/.yarnrc.yml',
      'cat ~root/.docker/config.json',
      'cat /home/*/.aws/credentials',
      'cat ~/projects/../.aws/credentials',
      'cat ~/.aws/x/../credentials',
      'base64 -w0 ~/.d*/config.json',
      'cat ~/.*',
      'kubectl --kubeconfig=$HOME/.kube/config config view --raw',
      'tar czf /tmp/x.tgz ~/.ssh',
      'bash -c "cat \\$HOME/.codex/auth.json"',
    ]
    expect(await verdicts(lines)).toEqual(all(lines, 'deny'))
  })

  it('resolves a relative path from the project root', async () => {
    const root = fs.mkdtempSync(path.join(home, 'stepwise-policy-'))
    try {
      const up = path.relative(root, home) || '.'
      const lines = [`cat ${up}/.yarnrc.yml`, `cat ${up}/.claude/.credentials.json`]
      expect(await verdicts(lines, root)).toEqual(all(lines, 'deny'))
      // The project's own Yarn settings are not the user's token.
      expect(await verdicts(['cat .yarnrc.yml'], root)).toEqual({ 'cat .yarnrc.yml': 'allow' })
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it('judges a path partly known at run time by the parts written out', async () => {
    const refused = [
      'cat $D/.ssh/id_x',
      'cat ~/.aws/$F',
      'cat $D/../.kube/config',
      'cat ${HOME:-/x}/.kube/config',
    ]
    expect(await verdicts(refused)).toEqual(all(refused, 'deny'))
    // Nothing written out names a credential: the allowlist's rule for run-time words decides.
    const rest = await verdicts(['cat $X', 'cat $HOME/$F', 'cat $P/.yarnrc.yml'])
    expect(Object.values(rest).filter((v) => v === 'deny')).toEqual([])
  })

  it('refuses them read through a redirection: <, exec 3<, /dev/fd, a loop, mapfile', async () => {
    const lines = [
      'cat < ~/.ssh/id_rsa',
      'exec 3< ~/.ssh/id_rsa; cat <&3',
      'cat /dev/fd/3 3< ~/.aws/credentials',
      'cat /proc/self/fd/4 4<"$HOME/.ssh/id_rsa"',
      'while read -r l; do echo "$l"; done < ~/.aws/credentials',
      'mapfile -t a < ~/.ssh/id_rsa; printf "%s\\n" "${a[@]}"',
      'wc -l < .env',
      'base64 0< config/.env.local',
    ]
    expect(await verdicts(lines)).toEqual(all(lines, 'deny'))
  })

  it('refuses a relative credential read from a home named as the folder (tar -C ~ .ssh)', async () => {
    const lines = [
      'tar -cf - -C ~ .ssh',
      'tar --directory=$HOME -cf - .aws/credentials',
      `zip -r - ${home} .kube`,
      'git -C ~ show HEAD:.git-credentials',
    ]
    expect(await verdicts(lines)).toEqual(all(lines, 'deny'))
  })

  it('refuses a recursive read of a home or a folder above one', async () => {
    const lines = [
      'grep -r KEY ~',
      'grep -rn KEY $HOME',
      'rg PRIVATE ~/',
      'egrep -R x /home',
      'tar -cf - ~',
      'cp -r ~ backup',
      'find ~ -type f -exec cat {} +',
      `rg token ${home}/..`,
      'git grep --no-index PRIVATE ~',
    ]
    expect(await verdicts(lines)).toEqual(all(lines, 'deny'))
  })

  it('lets commands through that only name them, or name look-alikes', async () => {
    const fine = [
      'ls -la ~/.ssh',
      'stat ~/.aws/credentials',
      'cat ~/notes.txt',
      'cat ~/*',
      'cat docs/aws-credentials.md',
      'cat .kube.yaml',
      'cat src/config.json',
      'echo ~/.kube/config',
      'sort < notes.txt',
      'tar -cf - -C ~ notes',
      'wc -l < src/.envelope.ts',
      'grep -r x .',
      'rg foo ~/projects/app',
      'ls -R ~',
      'find ~ -name "*.md"',
      'grep x ~/notes.txt',
    ]
    const got = await verdicts(fine)
    expect(Object.entries(got).filter(([, v]) => v === 'deny')).toEqual([])
  })
})

describe('one list of secrets', () => {
  it('gives the file tools, the command sandbox mask and the policy the same names', async () => {
    const tools = createDenyList()
    const samples = SECRET_FILE_NAMES.map((g) => g.replace(/^\*/, 'server').replace(/\*/g, 'x'))
    for (const name of samples) {
      expect(tools.isDenied(`sub/${name}`), name).toBe(true)
      expect(isSecretName(name), name).toBe(true)
      expect(isSecretName(name.toUpperCase()), name).toBe(true)
      expect((await checkCommand(`cat sub/${name}`)).verdict, name).toBe('deny')
    }
    for (const rel of HOME_CREDENTIALS) expect((await checkCommand(`cat ~/${rel}`)).verdict, rel).toBe('deny')
  })
})
