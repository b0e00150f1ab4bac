import { defineAdversarialSuite } from './suite'

/*
 * The adversarial sandbox suite, classes 1–4 and 6 (see suite.ts and
 * docs/commands.md, "Adversarial suite"); secrets.test.ts holds class 5.
 */
defineAdversarialSuite('sandbox', [1, 2, 3, 4, 6], {
  ids: ['c1-redirect-out', 'c1-perl-write', 'n-tcp-loopback'],
  why: [/wrote the marker/, /deleted/, /host listener received/],
})
