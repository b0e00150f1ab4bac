// `node --import <this file> child.mjs` lets the child import .ts sources; see ts-hooks.mjs.
import { register } from 'node:module'

register('./ts-hooks.mjs', import.meta.url)
