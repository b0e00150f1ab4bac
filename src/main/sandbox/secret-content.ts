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
  test: (head: string) => boolean
}

const RULES: readonly ContentRule[] = [
  {
    // RFC 7468 "Textual Encodings of PKIX, PKCS, and CMS Structures": `-----BEGIN PRIVATE KEY-----`,
    // OpenSSL's `RSA`/`EC`/`DSA`/`ENCRYPTED` variants, OpenSSH's `OPENSSH PRIVATE KEY` (ssh-keygen(1)),
    // and OpenPGP's `PGP PRIVATE KEY BLOCK` (RFC 4880 §6.2).
    what: 'a PEM private key',
    test: (h) => /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/.test(h),
  },
  {
    // PuTTY manual, appendix C: a PPK file starts `PuTTY-User-Key-File-2:` or `-3:`.
    what: 'a PuTTY private key',
    test: (h) => /^PuTTY-User-Key-File-\d+:/m.test(h),
  },
  {
    // Google Cloud "Create and delete service account keys": the JSON key file's `private_key` field.
    what: 'a service-account key (JSON with "private_key")',
    test: (h) => /"private_key"\s*:\s*"/.test(h),
  },
  {
    // AWS CLI "Configuration and credential file settings": `aws_secret_access_key = …`.
    what: 'AWS credentials',
    test: (h) => /^\s*aws_secret_access_key\s*=/im.test(h),
  },
  {
    // Kubernetes "Organizing cluster access using kubeconfig files": a user's `client-key-data`,
    // or a `token` in a file of `kind: Config`.
    what: 'a kubeconfig with credentials',
    test: (h) => /^\s*client-key-data\s*:/m.test(h) || (/^kind:\s*Config\b/m.test(h) && /^\s+token\s*:/m.test(h)),
  },
  {
    // docker login: `"auths": { "<registry>": { "auth": "<base64 user:password>" } }`.
    what: 'a docker config with registry credentials',
    test: (h) => /"auths"\s*:/.test(h) && /"(?:auth|identitytoken)"\s*:\s*"[^"]{4,}"/.test(h),
  },
  {
    // Terraform "State": a JSON document with `terraform_version` and `lineage`.
    what: 'Terraform state',
    test: (h) => /"terraform_version"\s*:/.test(h) && /"lineage"\s*:/.test(h),
  },
  {
    // gh auth login without a keyring: `oauth_token:` in hosts.yml.
    what: 'a GitHub CLI token file',
    test: (h) => /^\s*oauth_token\s*:\s*\S/m.test(h),
  },
]

/**
 * What kind of secret the head of a file holds, or undefined. `head` is the file's first
 * bytes (more is ignored); decoded as latin1 so any byte sequence is read in one pass.
 */
export function secretContentKind(head: Uint8Array): string | undefined {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, SECRET_HEAD_BYTES)).toString(
    'latin1',
  )
  for (const rule of RULES) if (rule.test(text)) return rule.what
  return undefined
}
