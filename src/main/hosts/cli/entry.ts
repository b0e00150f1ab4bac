// Entry of the `stepwise` CLI (built to out/main/cli.js, run with plain Node). A
// `stepwise edit` starts its baseline's stats first (early.ts); then the program loads.
import { prefetchForEdit } from './early'
import { keepOldGenerationTight } from './old-generation'
import { keepYoungGenerationSmall } from './young-generation'

keepYoungGenerationSmall()
keepOldGenerationTight()
prefetchForEdit(process.argv.slice(2))
await import('./main')
