import { defineAdversarialSuite } from './suite'

/*
 * Round two for the command sandbox (see suite.ts and cases-round2-exec.ts): classes 8 and 9.
 * The control: with the sandbox off, .git/config takes the planted fsmonitor and the deep
 * .env.local is printed, the write through a link lands outside, and the test script prints
 * the history's secrets hex-encoded.
 */
defineAdversarialSuite('round2-exec', [8, 9], {
  ids: ['r2-walk-flood', 'r2-hardlink-flood', 'r2-history-decoded'],
  why: [
    /changed .*\.git\/config.*printed the secret zz\/deeper\/\.env\.local/,
    /changed .*victims\/r2-hardlink-flood/,
    /printed the secret prod\.env \(hex\)/,
  ],
})
