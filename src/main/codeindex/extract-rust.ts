import type { Node, Tree } from 'web-tree-sitter'
import { endLine, line, squash } from './extract-common'
import type { ClassFact, FileFacts, FunctionFact, MethodFact } from './types'
import { pushAll } from '../../shared/arrays'

/**
 * Rust: `use` and `mod x;` (imports), functions, structs / enums / traits as
 * classes, with the methods of `impl` blocks in this file. Exported = `pub`.
 */

export const RUST_SHARED_QUERY = `
[(line_comment) (block_comment)] @comment
[(string_literal) (raw_string_literal) (char_literal)] @skip
[(if_expression) (for_expression) (while_expression) (loop_expression) (match_expression)
 (closure_expression)] @nest
`

type Facts = Pick<FileFacts, 'imports' | 'exports' | 'functions' | 'classes' | 'variables' | 'entry'>

const isPub = (node: Node) => node.namedChildren.some((c) => c?.type === 'visibility_modifier')

function params(node: Node): string[] {
  const list = node.childForFieldName('parameters')
  if (!list) return []
  return list.namedChildren
    .filter((p) => p && p.type !== 'self_parameter' && p.type !== 'comment' && p.type !== 'attribute_item')
    .map((p) => squash(p!.text, 60))
}

function functionFact(node: Node): FunctionFact {
  const mods = node.namedChildren.find((c) => c?.type === 'function_modifiers')
  return {
    name: node.childForFieldName('name')?.text ?? '?',
    params: params(node),
    async: mods ? mods.text.includes('async') : false,
    exported: isPub(node),
    line: line(node),
    endLine: endLine(node),
  }
}

export function extractRust(tree: Tree): Facts {
  const out: Facts = { imports: [], exports: [], functions: [], classes: [], variables: [] }
  const impls: Node[] = []
  for (const node of tree.rootNode.namedChildren) {
    if (!node) continue
    switch (node.type) {
      case 'use_declaration': {
        const arg = node.childForFieldName('argument')
        if (!arg) break
        const text = squash(arg.text, 200)
        const names = [...text.matchAll(/(\w+|\*)\s*(?:[,}]|$)/g)].map((m) => m[1])
        out.imports.push({ source: text.replace(/::\{.*$/, ''), names, line: line(node) })
        break
      }
      case 'mod_item':
        // `mod x;` pulls in x.rs or x/mod.rs; an inline `mod x { … }` is not a file.
        if (!node.childForFieldName('body')) {
          const name = node.childForFieldName('name')?.text
          if (name) out.imports.push({ source: name, names: ['*'], line: line(node), mod: true })
        }
        break
      case 'extern_crate_declaration': {
        const name = node.childForFieldName('name')?.text
        if (name) out.imports.push({ source: name, names: ['*'], line: line(node) })
        break
      }
      case 'function_item':
        out.functions.push(functionFact(node))
        break
      case 'struct_item':
      case 'enum_item':
      case 'trait_item':
      case 'union_item':
        out.classes.push(typeFact(node))
        break
      case 'impl_item':
        impls.push(node)
        break
      case 'const_item':
      case 'static_item':
      case 'type_item': {
        const name = node.childForFieldName('name')?.text
        if (name)
          out.variables.push({
            name,
            kind: node.type === 'type_item' ? 'type' : 'variable',
            exported: isPub(node),
            line: line(node),
            endLine: endLine(node),
          })
        break
      }
    }
  }
  for (const impl of impls) implBlock(impl, out)
  if (out.functions.some((f) => f.name === 'main')) out.entry = true
  for (const f of out.functions)
    if (f.exported) out.exports.push({ name: f.name, kind: 'function', line: f.line })
  for (const c of out.classes) if (c.exported) out.exports.push({ name: c.name, kind: c.kind, line: c.line })
  for (const v of out.variables)
    if (v.exported) out.exports.push({ name: v.name, kind: v.kind, line: v.line })
  return out
}

function typeFact(node: Node): ClassFact {
  const kind = node.type === 'trait_item' ? 'trait' : node.type === 'enum_item' ? 'enum' : 'struct'
  const fact: ClassFact = {
    name: node.childForFieldName('name')?.text ?? '?',
    kind,
    exported: isPub(node),
    extends: [],
    implements: [],
    methods: [],
    properties: [],
    line: line(node),
    endLine: endLine(node),
  }
  const bounds = node.childForFieldName('bounds')
  if (bounds)
    pushAll(
      fact.extends,
      bounds.namedChildren.map((b) => squash(b!.text, 60)),
    )
  const body = node.childForFieldName('body')
  for (const member of body?.namedChildren ?? []) {
    if (!member) continue
    if (member.type === 'field_declaration' || member.type === 'enum_variant') {
      const name = member.childForFieldName('name')?.text
      const type = member.childForFieldName('type')?.text
      if (name)
        fact.properties.push({
          name,
          static: member.type === 'enum_variant',
          visibility: member.type === 'enum_variant' || isPub(member) ? 'public' : 'private',
          line: line(member),
          ...(type ? { type: squash(type, 60) } : {}),
        })
    } else if (member.type === 'function_item' || member.type === 'function_signature_item') {
      fact.methods.push(methodFact(member, true))
    }
  }
  return fact
}

function methodFact(node: Node, inTrait: boolean): MethodFact {
  const fn = functionFact(node)
  const hasSelf = node
    .childForFieldName('parameters')
    ?.namedChildren.some((p) => p?.type === 'self_parameter')
  return {
    name: fn.name,
    params: fn.params,
    async: fn.async,
    static: !hasSelf,
    visibility: inTrait || fn.exported ? 'public' : 'private',
    line: fn.line,
    endLine: fn.endLine,
  }
}

function implBlock(impl: Node, out: Facts): void {
  const typeName = impl.childForFieldName('type')?.text.replace(/<.*$/, '')
  const trait = impl.childForFieldName('trait')?.text
  if (!typeName) return
  const owner = out.classes.find((c) => c.name === typeName)
  if (owner && trait && !owner.implements.includes(trait)) owner.implements.push(trait)
  const body = impl.childForFieldName('body')
  for (const member of body?.namedChildren ?? []) {
    if (member?.type !== 'function_item') continue
    const method = methodFact(member, trait !== undefined)
    if (owner) owner.methods.push(method)
    else
      out.functions.push({
        name: `${typeName}::${method.name}`,
        params: method.params,
        async: method.async,
        exported: method.visibility === 'public',
        line: method.line,
        endLine: method.endLine,
      })
  }
}
