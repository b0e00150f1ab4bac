import type { Node, Tree } from 'web-tree-sitter'
import { endLine, leadingTokens, line, squash } from './extract-common'
import type {
  ClassFact,
  FileFacts,
  FunctionFact,
  ImportFact,
  MethodFact,
  PropertyFact,
  VariableFact,
} from './types'
import { pushAll } from '../../shared/arrays'

/*
 * TypeScript, TSX, JavaScript and JSX. Only the top level and class bodies are
 * visited node by node; `require()` and `import()` calls anywhere come from the
 * shared query (captures `require` / `dynamic`).
 */

export const JS_SHARED_QUERY = `
(comment) @comment
[(string) (template_string) (regex)] @skip
[(if_statement) (for_statement) (for_in_statement) (while_statement) (do_statement)
 (switch_statement) (try_statement) (arrow_function) (function_expression)] @nest
`

/** `require('x')` and `import('x')` anywhere; run only when the text mentions them (it costs a pass). */
export const JS_CALLS_QUERY = `
(call_expression function: (identifier) @_req (#eq? @_req "require")
  arguments: (arguments . (string (string_fragment) @require)))
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @dynamic)))
`

type Facts = Pick<FileFacts, 'imports' | 'exports' | 'functions' | 'classes' | 'variables'>

export function extractJs(tree: Tree, requires: Array<{ name: string; node: Node }>): Facts {
  const out: Facts = { imports: [], exports: [], functions: [], classes: [], variables: [] }
  const exportedLater = new Set<string>()
  for (const node of tree.rootNode.namedChildren) {
    if (!node) continue
    switch (node.type) {
      case 'import_statement':
        out.imports.push(importOf(node))
        break
      case 'export_statement':
        exportStatement(node, out, exportedLater)
        break
      default:
        declaration(node, false, out)
    }
  }
  for (const { node } of requires) out.imports.push({ source: node.text, names: ['*'], line: line(node) })
  if (exportedLater.size > 0) {
    for (const list of [out.functions, out.classes, out.variables] as Array<
      Array<{ name: string; exported: boolean }>
    >)
      for (const item of list) if (exportedLater.has(item.name)) item.exported = true
  }
  return out
}

function stringValue(node: Node | null): string {
  if (!node) return ''
  const text = node.text
  return text.length >= 2 && /^['"`]/.test(text) ? text.slice(1, -1) : text
}

function importOf(node: Node): ImportFact {
  const names: string[] = []
  let typeOnly = false
  for (const child of node.children) {
    if (!child) continue
    if (child.type === 'type') typeOnly = true
    if (child.type !== 'import_clause') continue
    for (const part of child.namedChildren) {
      if (!part) continue
      if (part.type === 'identifier') names.push('default')
      else if (part.type === 'namespace_import') names.push('*')
      else if (part.type === 'named_imports')
        for (const spec of part.namedChildren)
          if (spec?.type === 'import_specifier') names.push(spec.childForFieldName('name')?.text ?? spec.text)
    }
  }
  const fact: ImportFact = { source: stringValue(node.childForFieldName('source')), names, line: line(node) }
  if (typeOnly) fact.typeOnly = true
  return fact
}

function exportStatement(node: Node, out: Facts, exportedLater: Set<string>): void {
  const source = node.childForFieldName('source')
  const decl = node.childForFieldName('declaration')
  const isDefault = node.children.some((c) => c?.type === 'default')
  if (decl) {
    const before = { f: out.functions.length, c: out.classes.length, v: out.variables.length }
    declaration(decl, true, out)
    const added = [
      ...out.functions
        .slice(before.f)
        .map((f) => ({ name: f.name, kind: 'function' as const, line: f.line })),
      ...out.classes.slice(before.c).map((c) => ({ name: c.name, kind: c.kind, line: c.line })),
      ...out.variables.slice(before.v).map((v) => ({ name: v.name, kind: v.kind, line: v.line })),
    ]
    for (const a of added)
      out.exports.push({ name: isDefault ? 'default' : a.name, kind: a.kind, line: a.line })
    if (added.length === 0 && isDefault)
      out.exports.push({ name: 'default', kind: 'variable', line: line(node) })
    return
  }
  if (isDefault) {
    // `export default foo` or `export default { … }`.
    const value = node.namedChildren.find((c) => c && c.type !== 'comment')
    if (value?.type === 'identifier') exportedLater.add(value.text)
    out.exports.push({ name: 'default', kind: 'variable', line: line(node) })
    return
  }
  const from = source ? stringValue(source) : undefined
  const names: string[] = []
  let clause = false
  for (const child of node.namedChildren) {
    if (child?.type === 'export_clause') {
      clause = true
      for (const spec of child.namedChildren) {
        if (spec?.type !== 'export_specifier') continue
        const local = spec.childForFieldName('name')?.text ?? spec.text
        const alias = spec.childForFieldName('alias')?.text
        names.push(local)
        out.exports.push({
          name: alias ?? local,
          kind: 'variable',
          line: line(spec),
          ...(from ? { from } : {}),
        })
        if (!from) exportedLater.add(local)
      }
    } else if (child?.type === 'namespace_export') {
      clause = true
      out.exports.push({
        name: child.text.replace(/^\*\s*as\s*/, ''),
        kind: 'module',
        line: line(node),
        from,
      })
    }
  }
  if (!clause && from) out.exports.push({ name: '*', kind: 'module', line: line(node), from })
  if (from) out.imports.push({ source: from, names: names.length > 0 ? names : ['*'], line: line(node) })
}

function declaration(node: Node, exported: boolean, out: Facts): void {
  switch (node.type) {
    case 'function_declaration':
    case 'generator_function_declaration':
    case 'function_signature': {
      const name = node.childForFieldName('name')?.text
      if (name) out.functions.push(functionFact(node, name, exported))
      break
    }
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'class':
      out.classes.push(classFact(node, 'class', exported))
      break
    case 'interface_declaration':
      out.classes.push(classFact(node, 'interface', exported))
      break
    case 'enum_declaration':
      out.classes.push(classFact(node, 'enum', exported))
      break
    case 'type_alias_declaration': {
      const name = node.childForFieldName('name')?.text
      if (name) out.variables.push({ name, kind: 'type', exported, line: line(node), endLine: endLine(node) })
      break
    }
    case 'lexical_declaration':
    case 'variable_declaration':
      for (const d of node.namedChildren) {
        if (d?.type !== 'variable_declarator') continue
        const nameNode = d.childForFieldName('name')
        if (!nameNode || nameNode.type !== 'identifier') continue
        const value = d.childForFieldName('value')
        if (value && (value.type === 'arrow_function' || value.type === 'function_expression'))
          out.functions.push(functionFact(value, nameNode.text, exported, d))
        else if (value?.type === 'class') out.classes.push(classFact(value, 'class', exported, nameNode.text))
        else out.variables.push(variableFact(d, nameNode.text, exported))
      }
      break
    case 'ambient_declaration':
      for (const child of node.namedChildren) if (child) declaration(child, exported, out)
      break
  }
}

function variableFact(node: Node, name: string, exported: boolean): VariableFact {
  return { name, kind: 'variable', exported, line: line(node), endLine: endLine(node) }
}

function paramsOf(node: Node): string[] {
  const params = node.childForFieldName('parameters') ?? node.childForFieldName('parameter')
  if (!params) return []
  // An arrow function's single bare parameter (`x => …`) is the parameter itself.
  if (params.type === 'identifier') return [params.text]
  return params.namedChildren.filter((p) => p && p.type !== 'comment').map((p) => squash(p!.text, 60))
}

function functionFact(node: Node, name: string, exported: boolean, span: Node = node): FunctionFact {
  const tokens = leadingTokens(node, node.childForFieldName('parameters'))
  return {
    name,
    params: paramsOf(node),
    async: tokens.has('async'),
    exported,
    line: line(span),
    endLine: endLine(span),
  }
}

function heritage(node: Node): { extends: string[]; implements: string[] } {
  const result = { extends: [] as string[], implements: [] as string[] }
  for (const child of node.namedChildren) {
    if (!child) continue
    if (child.type === 'class_heritage') {
      for (const clause of child.namedChildren) {
        if (clause?.type === 'extends_clause')
          pushAll(
            result.extends,
            clause.namedChildren.filter((c) => c?.type !== 'type_arguments').map((c) => squash(c!.text, 60)),
          )
        else if (clause?.type === 'implements_clause')
          pushAll(
            result.implements,
            clause.namedChildren.map((c) => squash(c!.text, 60)),
          )
        // JavaScript: class_heritage holds the expression directly.
        else if (clause) result.extends.push(squash(clause.text, 60))
      }
    } else if (child.type === 'extends_type_clause') {
      pushAll(
        result.extends,
        child.namedChildren.map((c) => squash(c!.text, 60)),
      )
    }
  }
  return result
}

function visibilityOf(tokens: Set<string>, name: string): MethodFact['visibility'] {
  if (tokens.has('private') || name.startsWith('#')) return 'private'
  if (tokens.has('protected')) return 'protected'
  return 'public'
}

function classFact(node: Node, kind: ClassFact['kind'], exported: boolean, name?: string): ClassFact {
  const fact: ClassFact = {
    name: name ?? node.childForFieldName('name')?.text ?? 'default',
    kind,
    exported,
    ...heritage(node),
    methods: [],
    properties: [],
    line: line(node),
    endLine: endLine(node),
  }
  const body = node.childForFieldName('body')
  if (!body) return fact
  for (const member of body.namedChildren) {
    if (!member) continue
    switch (member.type) {
      case 'method_definition':
      case 'method_signature':
      case 'abstract_method_signature': {
        const nameNode = member.childForFieldName('name')
        if (!nameNode) break
        const tokens = leadingTokens(member, nameNode)
        const method: MethodFact = {
          name: nameNode.text,
          params: paramsOf(member),
          async: tokens.has('async'),
          static: tokens.has('static'),
          visibility: visibilityOf(tokens, nameNode.text),
          line: line(member),
          endLine: endLine(member),
        }
        fact.methods.push(method)
        if (method.name === 'constructor') constructorProperties(member, fact.properties)
        break
      }
      case 'public_field_definition':
      case 'field_definition':
      case 'property_signature': {
        const nameNode = member.childForFieldName('name') ?? member.childForFieldName('property')
        if (!nameNode) break
        const tokens = leadingTokens(member, nameNode)
        const type = member.childForFieldName('type')?.text.replace(/^:\s*/, '')
        const prop: PropertyFact = {
          name: nameNode.text,
          static: tokens.has('static'),
          visibility: visibilityOf(tokens, nameNode.text),
          line: line(member),
        }
        if (type) prop.type = squash(type, 60)
        fact.properties.push(prop)
        break
      }
      case 'enum_assignment':
      case 'property_identifier': {
        const nameNode = member.type === 'enum_assignment' ? member.childForFieldName('name') : member
        if (nameNode)
          fact.properties.push({
            name: nameNode.text,
            static: true,
            visibility: 'public',
            line: line(member),
          })
        break
      }
    }
  }
  return fact
}

/** TypeScript parameter properties: `constructor(private readonly db: Db)`. */
function constructorProperties(ctor: Node, into: PropertyFact[]): void {
  const params = ctor.childForFieldName('parameters')
  if (!params) return
  for (const p of params.namedChildren) {
    if (!p) continue
    const tokens = leadingTokens(p, p.childForFieldName('pattern'))
    if (!tokens.has('accessibility_modifier') && !tokens.has('readonly')) continue
    const name = p.childForFieldName('pattern')?.text
    if (!name) continue
    const type = p.childForFieldName('type')?.text.replace(/^:\s*/, '')
    const prop: PropertyFact = { name, static: false, visibility: visibilityOf(tokens, name), line: line(p) }
    if (type) prop.type = squash(type, 60)
    into.push(prop)
  }
}
