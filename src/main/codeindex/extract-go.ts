import type { Node, Tree } from 'web-tree-sitter'
import { endLine, line, squash } from './extract-common'
import type { ClassFact, FileFacts, FunctionFact, MethodFact } from './types'

/**
 * Go: package, imports, funcs, types (structs and interfaces as classes, with the
 * methods declared on them in this file), consts and vars. Exported = capitalised.
 */

export const GO_SHARED_QUERY = `
(comment) @comment
[(interpreted_string_literal) (raw_string_literal)] @skip
[(if_statement) (for_statement) (expression_switch_statement) (type_switch_statement)
 (select_statement) (func_literal)] @nest
`

type Facts = Pick<
  FileFacts,
  'imports' | 'exports' | 'functions' | 'classes' | 'variables' | 'entry' | 'package'
>

const isExported = (name: string) => /^\p{Lu}/u.test(name)
const unquote = (s: string) => s.replace(/^["`]|["`]$/g, '')

function params(node: Node | null): string[] {
  if (!node) return []
  return node.namedChildren.filter((p) => p && p.type !== 'comment').map((p) => squash(p!.text, 60))
}

export function extractGo(tree: Tree): Facts {
  const out: Facts = { imports: [], exports: [], functions: [], classes: [], variables: [] }
  const methods: GoMethod[] = []
  for (const node of tree.rootNode.namedChildren) {
    if (!node) continue
    switch (node.type) {
      case 'package_clause':
        out.package = node.namedChild(0)?.text
        break
      case 'import_declaration':
        for (const spec of importSpecs(node)) {
          const path = spec.childForFieldName('path')
          if (path) out.imports.push({ source: unquote(path.text), names: ['*'], line: line(spec) })
        }
        break
      case 'function_declaration': {
        const name = node.childForFieldName('name')?.text
        if (!name) break
        const fn: FunctionFact = {
          name,
          params: params(node.childForFieldName('parameters')),
          async: false,
          exported: isExported(name),
          line: line(node),
          endLine: endLine(node),
        }
        out.functions.push(fn)
        break
      }
      case 'method_declaration': {
        const method = methodDeclaration(node)
        if (method) methods.push(method)
        break
      }
      case 'type_declaration':
        for (const spec of node.namedChildren) if (spec?.type === 'type_spec') typeSpec(spec, out)
        break
      case 'const_declaration':
      case 'var_declaration':
        for (const spec of node.namedChildren) {
          if (!spec) continue
          for (const n of spec.childrenForFieldName('name'))
            if (n)
              out.variables.push({
                name: n.text,
                kind: 'variable',
                exported: isExported(n.text),
                line: line(spec),
                endLine: endLine(spec),
              })
        }
        break
    }
  }
  for (const { receiver, method, exported } of methods) {
    const owner = out.classes.find((c) => c.name === receiver)
    if (owner) owner.methods.push(method)
    else out.functions.push({ ...method, name: `${receiver}.${method.name}`, exported })
  }
  if (out.package === 'main' && out.functions.some((f) => f.name === 'main')) out.entry = true
  for (const f of out.functions)
    if (f.exported) out.exports.push({ name: f.name, kind: 'function', line: f.line })
  for (const c of out.classes) if (c.exported) out.exports.push({ name: c.name, kind: c.kind, line: c.line })
  for (const v of out.variables)
    if (v.exported) out.exports.push({ name: v.name, kind: v.kind, line: v.line })
  return out
}

/** A method and the type it belongs to (its receiver's, without pointer or type parameters). */
interface GoMethod {
  receiver: string
  method: MethodFact
  exported: boolean
}

function methodDeclaration(node: Node): GoMethod | undefined {
  const name = node.childForFieldName('name')?.text
  const receiver = node.childForFieldName('receiver')
  const recvType = receiver?.namedChild(0)?.childForFieldName('type')?.text.replace(/^\*/, '')
  if (!name || !recvType) return undefined
  return {
    receiver: recvType.replace(/\[.*$/, ''),
    exported: isExported(name),
    method: {
      name,
      params: params(node.childForFieldName('parameters')),
      async: false,
      static: false,
      visibility: isExported(name) ? 'public' : 'private',
      line: line(node),
      endLine: endLine(node),
    },
  }
}

function importSpecs(node: Node): Node[] {
  const out: Node[] = []
  for (const child of node.namedChildren) {
    if (child?.type === 'import_spec') out.push(child)
    else if (child?.type === 'import_spec_list')
      for (const spec of child.namedChildren) if (spec?.type === 'import_spec') out.push(spec)
  }
  return out
}

function typeSpec(spec: Node, out: Facts): void {
  const name = spec.childForFieldName('name')?.text
  const type = spec.childForFieldName('type')
  if (!name || !type) return
  if (type.type !== 'struct_type' && type.type !== 'interface_type') {
    out.variables.push({
      name,
      kind: 'type',
      exported: isExported(name),
      line: line(spec),
      endLine: endLine(spec),
    })
    return
  }
  const fact: ClassFact = {
    name,
    kind: type.type === 'struct_type' ? 'struct' : 'interface',
    exported: isExported(name),
    extends: [],
    implements: [],
    methods: [],
    properties: [],
    line: line(spec),
    endLine: endLine(spec),
  }
  const list = type.type === 'struct_type' ? type.namedChild(0) : type
  for (const member of list?.namedChildren ?? []) {
    if (!member) continue
    if (member.type === 'field_declaration') {
      const names = member.childrenForFieldName('name')
      const fieldType = member.childForFieldName('type')?.text
      // A field without a name is an embedded type: Go's composition.
      if (names.length === 0 && fieldType) fact.extends.push(fieldType.replace(/^\*/, ''))
      for (const n of names)
        if (n)
          fact.properties.push({
            name: n.text,
            static: false,
            visibility: isExported(n.text) ? 'public' : 'private',
            line: line(member),
            ...(fieldType ? { type: squash(fieldType, 60) } : {}),
          })
    } else if (member.type === 'method_elem') {
      const methodName = member.childForFieldName('name')?.text ?? '?'
      fact.methods.push({
        name: methodName,
        params: params(member.childForFieldName('parameters')),
        async: false,
        static: false,
        visibility: isExported(methodName) ? 'public' : 'private',
        line: line(member),
        endLine: endLine(member),
      })
    } else if (member.type === 'type_elem') {
      fact.extends.push(squash(member.text, 60))
    }
  }
  out.classes.push(fact)
}
