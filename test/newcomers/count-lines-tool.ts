import { z } from 'zod'
import { fail, resolvePath } from '../../src/main/tools/files'
import { pathArg } from '../../src/main/tools/schema'
import type { ReadTool } from '../../src/main/tools/types'

const countLinesInput = z.object({
  path: pathArg('Path of the file, relative to the project root.'),
})

export const countLinesTool: ReadTool<typeof countLinesInput> = {
  name: 'count_lines',
  family: 'read',
  mutating: false,
  description: 'How many lines a text file has, without reading it into the conversation.',
  input: countLinesInput,
  async run(input, ctx) {
    const file = resolvePath(ctx, input.path)
    if ('error' in file) return file
    const read = ctx.sandbox.gate.read(file, { maxBytes: ctx.limits.maxReadBytes })
    if ('error' in read) return fail(read.error)
    const text = read.data.toString('utf8')
    return {
      ok: true,
      path: file.rel,
      lines: text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
    }
  },
}
