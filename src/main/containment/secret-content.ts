import { anyOfLiterals } from '../../shared/regexp'

/*
 * Secrets recognised by what they hold, whatever their name: a GCP key saved as `deploy.json`, a
 * kubeconfig copied to `cluster.yaml`. Only the head of a file is looked at (SECRET_HEAD_BYTES),
 * and only for formats whose markers do not occur in ordinary code by accident. Each marker is
 * the one its tool's docs show.
 */

/** How much of a file the content check reads: every format below puts its marker near the top. */
export const SECRET_HEAD_BYTES = 8 * 1024

interface ContentRule {
  /** What the file is, for the message. */
  what: string
  /** Every one must match the head (plain regular expressions, so snapshot helpers can share them). */
  all: readonly RegExp[]
  /**
   * Text that every match of `all[0]` contains (compared ignoring case): a head holding no
   * rule's hint is not a secret, found in one pass instead of one pass per expression.
   */
  hint: string
}

const RULES: readonly ContentRule[] = [
  {
    // RFC 7468 "Textual Encodings of PKIX, PKCS, and CMS Structures": `-----BEGIN PRIVATE KEY-----`,
    // OpenSSL's `RSA`/`EC`/`DSA`/`ENCRYPTED` variants, OpenSSH's `OPENSSH PRIVATE KEY` (ssh-keygen(1)),
    // and OpenPGP's `PGP PRIVATE KEY BLOCK` (RFC 4880 §6.2).
    what: 'a PEM private key',
    all: [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/],
    hint: 'PRIVATE KEY',
  },
  {
    // PuTTY manual, appendix C: a PPK file starts `PuTTY-User-Key-File-2:` or `-3:`.
    what: 'a PuTTY private key',
    all: [/^PuTTY-User-Key-File-\d+:/m],
    hint: 'PuTTY-User-Key-File-',
  },
  {
    // Google Cloud "Create and delete service account keys": the JSON key file's `private_key` field.
    what: 'a service-account key (JSON with "private_key")',
    all: [/"private_key"\s*:\s*"/],
    hint: '"private_key"',
  },
  {
    // AWS CLI "Configuration and credential file settings": `aws_secret_access_key = …`.
    what: 'AWS credentials',
    all: [/^\s*aws_secret_access_key\s*=/im],
    hint: 'aws_secret_access_key',
  },
  {
    // Kubernetes "Organizing cluster access using kubeconfig files": a user's `client-key-data`,
    // or a `token` in a file of `kind: Config`.
    what: 'a kubeconfig with credentials',
    all: [/^\s*client-key-data\s*:/m],
    hint: 'client-key-data',
  },
  { what: 'a kubeconfig with credentials', all: [/^kind:\s*Config\b/m, /^\s+token\s*:/m], hint: 'kind:' },
  {
    // docker login: `"auths": { "<registry>": { "auth": "<base64 user:password>" } }`.
    what: 'a docker config with registry credentials',
    all: [/"auths"\s*:/, /"(?:auth|identitytoken)"\s*:\s*"[^"]{4,}"/],
    hint: '"auths"',
  },
  {
    // Terraform "State": a JSON document with `terraform_version` and `lineage`.
    what: 'Terraform state',
    all: [/"terraform_version"\s*:/, /"lineage"\s*:/],
    hint: '"terraform_version"',
  },
  {
    // gh auth login without a keyring: `oauth_token:` in hosts.yml.
    what: 'a GitHub CLI token file',
    all: [/^\s*oauth_token\s*:\s*\S/m],
    hint: 'oauth_token',
  },
]

/** Matches any head a rule could match (and a few more): the rules' hints, ignoring case. */
const HINT = anyOfLiterals(
  RULES.map((r) => r.hint),
  'i',
)

/**
 * What kind of secret the head of a file holds, or undefined. `head` is the file's first
 * bytes (more is ignored); decoded as latin1 so any byte sequence is read in one pass.
 */
export function secretContentKind(head: Uint8Array): string | undefined {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, SECRET_HEAD_BYTES)).toString(
    'latin1',
  )
  if (!HINT.test(text)) return undefined
  for (const rule of RULES) if (rule.all.every((re) => re.test(text))) return rule.what
  return undefined
}

/**
 * The same check as JavaScript source defining `secretContentKind(head)`, for code that runs
 * from a string (the snapshot's reading threads, readThreads.ts): one set of rules.
 */
export function secretContentSource(): string {
  const rules = RULES.map((r) => ({ what: r.what, all: r.all.map((re) => [re.source, re.flags]) }))
  return `const SECRET_RULES = ${JSON.stringify(rules)}.map((r) => ({ what: r.what, all: r.all.map(([s, f]) => new RegExp(s, f)) }))
const SECRET_HINT = new RegExp(${JSON.stringify(HINT.source)}, ${JSON.stringify(HINT.flags)})
function secretContentKind(head) {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, ${SECRET_HEAD_BYTES})).toString('latin1')
  if (!SECRET_HINT.test(text)) return undefined
  for (const rule of SECRET_RULES) if (rule.all.every((re) => re.test(text))) return rule.what
  return undefined
}`
}
