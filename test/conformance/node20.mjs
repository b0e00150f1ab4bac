// The conformance runner imports fs.globSync, which Node 20 lacks (it needs Node 22). Loaded with
// `node --import ./test/conformance/node20.mjs`, this points the runner's `fs` at the real module
// plus a globSync that throws: the client scenarios never call it.
import { register } from 'node:module'

const shim = `export * from 'node:fs'
import fs from 'node:fs'
export default fs
export function globSync() { throw new Error('fs.globSync needs Node 22') }`

const hooks = `export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/conformance/dist/'))
    return { url: 'data:text/javascript,' + encodeURIComponent(${JSON.stringify(shim)}), shortCircuit: true }
  return next(specifier, context)
}`

register(`data:text/javascript,${encodeURIComponent(hooks)}`)
