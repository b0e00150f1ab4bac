import { boundedIgnore } from './bounded-ignore'
import { anyOfLiterals } from '../../shared/regexp'

/*
 * The one list of secrets (docs/sandbox.md#the-denylist): the file tools refuse these names, the
 * command policy refuses commands that name them, the command sandbox masks them and the git
 * history check looks for them. Add a credential here and every one of those sees it.
 */

/**
 * Secret files by name, at any depth (basename globs, gitignore syntax): dotenv files (`.env`,
 * `.env.*`, and `*.env` as Docker Compose's `env_file:` names them, `prod.env`), direnv's `.envrc`
 * (shell `export`s of the project's environment), private keys and certificates (OpenSSH's `id_*` key names, ssh-keygen(1)), and the token files npm (npmrc(5)
 * `_authToken`), curl/ftp (`.netrc`), twine (`.pypirc`, packaging.python.org's pypirc spec) and
 * `git credential-store` (git-credential-store(1): `~/.git-credentials`) write in plain text.
 */
export const SECRET_FILE_NAMES: readonly string[] = [
  // Before `.env`: the last rule that matches names the reason, and `.env` reads better as `.env`.
  '*.env',
  '.env',
  '.env.*',
  '.envrc',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_ed25519*',
  'id_ecdsa*',
  'id_dsa*',
  '*.p12',
  '*.pfx',
  '.npmrc',
  '.netrc',
  '.pypirc',
  '.git-credentials',
  // Terraform state holds every resource attribute in plain text, passwords and keys included
  // (Terraform docs, "Sensitive data in state"); `terraform.tfstate.backup` is its previous copy.
  '*.tfstate',
  '*.tfstate.backup',
  // PuTTY's private key format (PuTTY manual, appendix C "PPK file format").
  '*.ppk',
  // libpq's password file (PostgreSQL docs, "The Password File").
  '.pgpass',
  // gcloud's application default credentials (Google Cloud docs, "How Application Default Credentials works").
  'application_default_credentials.json',
  // `terraform login`'s API token (Terraform CLI docs, "Credentials").
  'credentials.tfrc.json',
]

/**
 * Credential files found by their folder, at any depth inside a project (a copied home, a
 * `backup/` folder, a dev container's mounted config), in gitignore syntax: the same files
 * HOME_CREDENTIALS names under $HOME, met elsewhere. Each tool's docs: `.aws/credentials` (AWS CLI
 * "Configuration and credential file settings"), `.docker/config.json` (docker login: "stores
 * encoded credentials in $HOME/.docker/config.json"), `.kube/config` (Kubernetes "Organizing cluster
 * access using kubeconfig files": client keys and tokens), everything in `.ssh/` (ssh(1): private
 * keys under any name, `deploy_key` included), `gh/hosts.yml` (gh auth login: the token in plain
 * text when no keyring is found), `.config/gcloud/` (gcloud's credential database), `.gnupg/`
 * (GnuPG's private keys), `.azure/` (az login's token cache).
 */
export const SECRET_FILE_PATHS: readonly string[] = [
  '**/.aws/credentials',
  '**/.docker/config.json',
  '**/.kube/config',
  '.ssh/',
  '.gnupg/',
  '.azure/',
  '**/gh/hosts.yml',
  '**/.config/gcloud/',
]

/**
 * Paths no tool may read, write, list or search, in gitignore syntax so a pattern without a slash
 * matches at any depth. `.git/` is reached through the git tools.
 */
/** The denied paths that are not secrets: the git folder, dependencies, build output. */
export const NOT_SECRET_DENY: readonly string[] = [
  // A file in a git worktree or submodule, a folder elsewhere: both are denied.
  '.git',
  'node_modules/',
  'dist/',
]

export const DEFAULT_DENY: readonly string[] = [
  ...NOT_SECRET_DENY,
  ...SECRET_FILE_NAMES,
  ...SECRET_FILE_PATHS,
]

/**
 * Credentials under $HOME (paths relative to it, files or folders), each where its tool's own
 * documentation keeps it: `~/.ssh` (ssh(1)), `~/.aws/credentials` (AWS CLI "Configuration and
 * credential file settings"), `~/.kube/config` (Kubernetes "Organizing cluster access using
 * kubeconfig files": it holds client keys and tokens), `~/.docker/config.json` (docker login:
 * "stores encoded credentials in $HOME/.docker/config.json"), `~/.config/gh/hosts.yml` (gh auth
 * login: the token in a plain text file when no keyring is found), `~/.codex/auth.json` (Codex CLI's
 * authentication docs: the API key or ChatGPT tokens), `~/.claude/.credentials.json` (Claude Code's
 * authentication docs: the OAuth tokens on Linux), `~/.cargo/credentials.toml` (cargo login), Maven's
 * settings.xml servers, Gradle's gradle.properties, Yarn's npmAuthToken. The command sandbox never
 * binds them back and the command policy refuses commands that name them.
 */
export const HOME_CREDENTIALS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.kube',
  '.docker/config.json',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.codex/auth.json',
  '.claude/.credentials.json',
  '.local/share/keyrings',
  '.password-store',
  '.config/stepwise',
  '.local/share/stepwise',
]

export interface DenyList {
  /** The effective patterns, for ripgrep's `-g '!<pattern>'`. */
  readonly patterns: readonly string[]
  /** True when the root-relative POSIX path, or one of its parent directories, is denied. */
  isDenied(rel: string): boolean
  /** The pattern that denies `rel`, for an error message the model can act on. */
  reason(rel: string): string | undefined
}

/**
 * The default patterns plus `extraDeny`, minus any pattern listed in `allowDeny`
 * (a project that keeps its sources in `dist/` allows `dist/`).
 */
export function createDenyList(
  opts: { extraDeny?: readonly string[]; allowDeny?: readonly string[] } = {},
): DenyList {
  const allowed = new Set((opts.allowDeny ?? []).map((p) => p.trim()))
  const patterns = [...DEFAULT_DENY, ...(opts.extraDeny ?? [])]
    .map((p) => p.trim())
    .filter((p, i, all) => p !== '' && !p.startsWith('#') && !allowed.has(p) && all.indexOf(p) === i)
  // Letter case never matters (the `ignore` default, stated so no one turns it off): `.ENV` is the
  // file dotenv loads on macOS's case-insensitive disk, and `Server.PEM` is a key all the same.
  const matcher = boundedIgnore(patterns, { ignorecase: true })
  const mayMatch = literalFilter(patterns)

  const test = (rel: string) => {
    if (rel === '' || rel === '.') return undefined
    if (mayMatch && !mayMatch.test(rel)) return undefined
    // A directory pattern (`.git/`) only matches a path known to be a directory, so
    // test the bare name as a directory too: `.git` itself is denied, not only its files.
    const asFile = matcher.test(rel)
    if (asFile.ignored) return asFile.rule?.pattern
    const asDir = matcher.test(rel + '/')
    return asDir.ignored ? asDir.rule?.pattern : undefined
  }

  return {
    patterns,
    isDenied: (rel) => test(rel) !== undefined,
    reason: test,
  }
}

/**
 * Each pattern's longest literal run (`.env` of `.env.*`, `.ssh` of `.ssh/`),
 * as one case-blind expression; none when some pattern has no run to tell (a character class, a
 * negation, an escape). A path holding none of them cannot match, and most are turned away by this
 * alone: the matcher costs ~5–10 µs a path (two questions, each over the path's folders), ~0.6–1 s
 * of the session's thread for a 72,000-file listing, where the expression takes a few ms.
 */
function literalFilter(patterns: readonly string[]): RegExp | undefined {
  const literals = patterns.map((p) =>
    /^!|\\|\[/.test(p) ? '' : p.split(/[*?/]/).reduce((a, b) => (b.length > a.length ? b : a), ''),
  )
  return literals.length === 0 || literals.includes('') ? undefined : anyOfLiterals(literals, 'i')
}

/**
 * The denylist's secrets alone (not `.git`, `node_modules/`, `dist/`): the one matcher of secret
 * names and paths that the gate, the command mask, the command policy and the history check all
 * use, so they agree on names, on folders such as `.ssh/` and on letter case (`ignore` matches
 * without regard to case).
 */
export const SECRETS: DenyList = createDenyList({ allowDeny: NOT_SECRET_DENY })

/**
 * True when a root-relative path (or a bare name) is a secret by name: `.env`, `Server.PEM`,
 * `ID_RSA`, `backup/.aws/credentials`, anything in `.ssh/`.
 */
export function isSecretName(rel: string): boolean {
  return SECRETS.isDenied(rel.replace(/\\/g, '/').replace(/^\.?\/+/, ''))
}
