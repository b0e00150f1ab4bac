import { denyThroughCases, denyThroughControls } from './cases-deny-through'
import { defineAdversarialSuite } from './suite'

/*
 * The adversarial suite's class 7 (second round): deny-listed commands handed on
 * by an allowlisted program's option. The victims sit inside the project, where
 * the sandbox lets commands write, so every case must hold with the sandbox off
 * as well; the controls, plain commands the policy lets full-auto run, show the
 * canary sees a deleted or changed victim.
 */
defineAdversarialSuite('deny-through', [7], {
  ids: denyThroughControls.map((c) => c.id),
  why: [/deleted .*keep\.txt/, /changed .*keep\.txt/],
  unsandboxed: denyThroughCases.map((c) => c.id),
  extra: denyThroughControls,
})
