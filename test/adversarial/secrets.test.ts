import { UNSANDBOXED_HOLD } from './cases-secrets'
import { defineAdversarialSuite } from './suite'

/* The adversarial suite's class 5: no secret reaches a tool's output (see suite.ts). */
defineAdversarialSuite('secrets', [5], {
  ids: ['s-cargo-credentials'],
  why: [/printed the secret ~\/\.cargo\/credentials\.toml/],
  unsandboxed: UNSANDBOXED_HOLD,
})
