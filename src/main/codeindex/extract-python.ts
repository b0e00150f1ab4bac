import type { Node, Tree } from 'web-tree-sitter'
import { endLine, line, squash } from './extract-common'
import type { ClassFact, FileFacts, FunctionFact, ImportFact, MethodFact, PropertyFact } from './types'

/** Python: the module's top level and class bodies; `self.x = …` in `__init__` gives properties. */

export const PYTHON_SHARED_QUERY = `
(comment) @comment
(string) @skip
[(if_statement) (for_statement) (while_statement) (try_statement) (with_statement)
 (match_statement) (lambda)] @nest
(if_statement condition: (comparison_operator (identifier) @_n (string) @_m)
  (#eq? @_n "__name__") (#match? @_m "__main__")) @main
(function_definition name: (identifier) @_i (#eq? @_i "__init__")
  body: (block (expression_statement (assignment left: (attribute object: (identifier) @_s
    attribute: (identifier) @self_attr) (#eq? @_s "self")))))
`

type Facts = Pick<FileFacts, 'imports' | 'exports' | 'functions' | 'classes' | 'variables' | 'entry'>

export function extractPython(tree: Tree, captures: Array<{ name: string; node: Node }>): Facts {
  const out: Facts = { imports: [], exports: [], functions: [], classes: [], variables: [] }
  const selfAttrs = captures.filter((c) => c.name === 'self_attr').map((c) => c.node)
  if (captures.some((c) => c.name === 'main')) out.entry = true
  for (const child of tree.rootNode.namedChildren) {
    if (!child) continue
    const node =
      child.type === 'decorated_definition' ? (child.childForFieldName('definition') ?? child) : child
    const span = child
    switch (node.type) {
      case 'import_statement':
        for (const name of node.namedChildren) {
          if (!name) continue
          const dotted = name.type === 'aliased_import' ? name.childForFieldName('name') : name
          if (dotted) out.imports.push({ source: dotted.text, names: ['*'], line: line(node) })
        }
        break
      case 'import_from_statement':
        out.imports.push(fromImport(node))
        break
      case 'function_definition': {
        const name = node.childForFieldName('name')?.text
        if (name) out.functions.push(functionFact(node, span, name))
        break
      }
      case 'class_definition':
        out.classes.push(classFact(node, span, selfAttrs))
        break
      case 'expression_statement': {
        const assign = node.namedChild(0)
        const left = assign?.type === 'assignment' ? assign.childForFieldName('left') : null
        if (left?.type === 'identifier')
          out.variables.push({
            name: left.text,
            kind: 'variable',
            exported: !left.text.startsWith('_'),
            line: line(node),
            endLine: endLine(node),
          })
        break
      }
    }
  }
  const all = out.variables.find((v) => v.name === '__all__')
  for (const f of out.functions)
    if (f.exported) out.exports.push({ name: f.name, kind: 'function', line: f.line })
  for (const c of out.classes) if (c.exported) out.exports.push({ name: c.name, kind: 'class', line: c.line })
  if (all) out.variables = out.variables.filter((v) => v !== all)
  return out
}

function fromImport(node: Node): ImportFact {
  const moduleNode = node.childForFieldName('module_name')
  let source = moduleNode?.text ?? ''
  let level = 0
  if (moduleNode?.type === 'relative_import') {
    const prefix = moduleNode.namedChildren.find((c) => c?.type === 'import_prefix')
    level = prefix?.text.length ?? 0
    source = moduleNode.namedChildren.find((c) => c?.type === 'dotted_name')?.text ?? ''
  }
  const names: string[] = []
  for (const child of node.namedChildren) {
    if (!child || child === moduleNode || child.startIndex <= (moduleNode?.startIndex ?? -1)) continue
    if (child.type === 'wildcard_import') names.push('*')
    else if (child.type === 'dotted_name') names.push(child.text)
    else if (child.type === 'aliased_import') names.push(child.childForFieldName('name')?.text ?? child.text)
  }
  const fact: ImportFact = { source, names, line: line(node) }
  if (level > 0) fact.level = level
  return fact
}

function paramsOf(node: Node, method: boolean): string[] {
  const params = node.childForFieldName('parameters')
  if (!params) return []
  const list = params.namedChildren.filter((p) => p && p.type !== 'comment').map((p) => squash(p!.text, 60))
  if (method && (list[0] === 'self' || list[0] === 'cls')) list.shift()
  return list
}

const isAsync = (node: Node) => node.child(0)?.type === 'async'

function functionFact(node: Node, span: Node, name: string): FunctionFact {
  return {
    name,
    params: paramsOf(node, false),
    async: isAsync(node),
    exported: !name.startsWith('_'),
    line: line(span),
    endLine: endLine(span),
  }
}

function visibility(name: string): MethodFact['visibility'] {
  if (name.startsWith('__') && !name.endsWith('__')) return 'private'
  return name.startsWith('_') && !name.startsWith('__') ? 'protected' : 'public'
}

function classFact(node: Node, span: Node, selfAttrs: Node[]): ClassFact {
  const name = node.childForFieldName('name')?.text ?? '?'
  const bases = node.childForFieldName('superclasses')
  const fact: ClassFact = {
    name,
    kind: 'class',
    exported: !name.startsWith('_'),
    extends: bases
      ? bases.namedChildren.filter((b) => b && b.type !== 'keyword_argument').map((b) => squash(b!.text, 60))
      : [],
    implements: [],
    methods: [],
    properties: [],
    line: line(span),
    endLine: endLine(span),
  }
  const body = node.childForFieldName('body')
  if (!body) return fact
  const seen = new Set<string>()
  for (const member of body.namedChildren) {
    if (!member) continue
    const def = member.type === 'decorated_definition' ? member.childForFieldName('definition') : member
    if (def?.type === 'function_definition') {
      const methodName = def.childForFieldName('name')?.text ?? '?'
      const decorators = member.type === 'decorated_definition' ? member.text.split('\n', 3).join(' ') : ''
      fact.methods.push({
        name: methodName,
        params: paramsOf(def, true),
        async: isAsync(def),
        static: /@(staticmethod|classmethod)\b/.test(decorators),
        visibility: visibility(methodName),
        line: line(member),
        endLine: endLine(member),
      })
    } else if (def?.type === 'expression_statement') {
      const assign = def.namedChild(0)
      const left = assign?.type === 'assignment' ? assign.childForFieldName('left') : null
      if (left?.type === 'identifier' && !seen.has(left.text)) {
        seen.add(left.text)
        const prop: PropertyFact = {
          name: left.text,
          static: true,
          visibility: visibility(left.text),
          line: line(def),
        }
        const type = assign?.childForFieldName('type')?.text
        if (type) prop.type = squash(type, 60)
        fact.properties.push(prop)
      }
    }
  }
  for (const attr of selfAttrs) {
    if (attr.startIndex < node.startIndex || attr.endIndex > node.endIndex || seen.has(attr.text)) continue
    seen.add(attr.text)
    fact.properties.push({
      name: attr.text,
      static: false,
      visibility: visibility(attr.text),
      line: line(attr),
    })
  }
  return fact
}
