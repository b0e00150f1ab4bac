// Entry of the `stepwise` CLI (built to out/main/cli.js, run with plain Node). A
// `stepwise edit` starts its baseline's stats first (early.ts); then the program loads.
import { prefetchForEdit } from './early'
import { keepOldGenerationTight } from './old-generation'
import { keepYoungGenerationSmall } from './young-generation'

keepYoungGenerationSmall()
const resumesSavedState = prefetchForEdit(process.argv.slice(2))
// Only a process that may take a first baseline needs it; a later session would pay in collections.
if (!resumesSavedState) keepOldGenerationTight()
await import('./main')
