import { describe, expect, it } from 'vitest'
import { secretContentKind, secretContentSource } from './secret-content'

// The one-pass hint in front of the rules must never hide a secret the rules find. The AWS
// rule ignores case (the AWS CLI reads `AWS_SECRET_ACCESS_KEY` in a credentials file too).
const secrets: Array<[string, string]> = [
  ['AWS credentials', '[default]\nAWS_SECRET_ACCESS_KEY = canary\n'],
  ['AWS credentials', '[default]\n  aws_secret_access_key=canary\n'],
  ['a kubeconfig with credentials', 'apiVersion: v1\nkind: Config\nusers:\n- user:\n    token: canary\n'],
  ['a PEM private key', 'x\n-----BEGIN EC PRIVATE KEY-----\nMHc\n'],
  ['Terraform state', '{"terraform_version": "1.6.0", "lineage": "abc"}'],
]

/** The helpers' copy of the check (readThreads.ts runs it from source), evaluated here. */
function helperCheck(): (head: Uint8Array) => string | undefined {
  return new Function(`${secretContentSource()}\nreturn secretContentKind`)() as (
    head: Uint8Array,
  ) => string | undefined
}

describe('secretContentKind', () => {
  it.each(secrets)('finds %s past the hint, here and in the helpers’ copy', (what, text) => {
    expect(secretContentKind(Buffer.from(text))).toBe(what)
    expect(helperCheck()(Buffer.from(text))).toBe(what)
  })

  it('answers undefined for a head with no hint, and for one with a hint but no secret', () => {
    for (const text of ['export const a = 1\n'.repeat(500), 'kind: Deployment\nspec: {}\n']) {
      expect(secretContentKind(Buffer.from(text))).toBeUndefined()
      expect(helperCheck()(Buffer.from(text))).toBeUndefined()
    }
  })
})
