import type { Node, Tree } from 'web-tree-sitter'
import { endLine, line, squash } from './extract-common'
import type { ClassFact, FileFacts, MethodFact } from './types'
import { pushAll } from '../../shared/arrays'

/** Java: package, imports, top-level types with their methods, fields and nested types. */

export const JAVA_SHARED_QUERY = `
[(line_comment) (block_comment)] @comment
[(string_literal) (character_literal)] @skip
[(if_statement) (for_statement) (enhanced_for_statement) (while_statement) (do_statement)
 (switch_expression) (try_statement) (try_with_resources_statement) (lambda_expression)] @nest
`

type Facts = Pick<
  FileFacts,
  'imports' | 'exports' | 'functions' | 'classes' | 'variables' | 'entry' | 'package'
>

const TYPE_KINDS: Record<string, ClassFact['kind']> = {
  class_declaration: 'class',
  record_declaration: 'class',
  interface_declaration: 'interface',
  annotation_type_declaration: 'interface',
  enum_declaration: 'enum',
}

function modifiers(node: Node): string {
  return node.namedChildren.find((c) => c?.type === 'modifiers')?.text ?? ''
}

function visibility(mods: string, inInterface: boolean): MethodFact['visibility'] {
  if (/\bprivate\b/.test(mods)) return 'private'
  if (/\bprotected\b/.test(mods)) return 'protected'
  return /\bpublic\b/.test(mods) || inInterface ? 'public' : 'protected'
}

export function extractJava(tree: Tree): Facts {
  const out: Facts = { imports: [], exports: [], functions: [], classes: [], variables: [] }
  for (const node of tree.rootNode.namedChildren) {
    if (!node) continue
    if (node.type === 'package_declaration') {
      out.package = node.namedChildren.find((c) => c && c.type !== 'annotation')?.text
    } else if (node.type === 'import_declaration') {
      const path = node.namedChildren.find((c) => c?.type === 'scoped_identifier' || c?.type === 'identifier')
      if (!path) continue
      const wildcard = node.namedChildren.some((c) => c?.type === 'asterisk')
      out.imports.push({
        source: path.text + (wildcard ? '.*' : ''),
        names: [wildcard ? '*' : path.text.split('.').pop()!],
        line: line(node),
      })
    } else if (Object.hasOwn(TYPE_KINDS, node.type)) {
      typeDeclaration(node, out, '')
    }
  }
  for (const c of out.classes) {
    if (c.exported && !c.name.includes('.')) out.exports.push({ name: c.name, kind: c.kind, line: c.line })
    if (c.methods.some((m) => m.name === 'main' && m.static && m.visibility === 'public')) out.entry = true
  }
  return out
}

function typeDeclaration(node: Node, out: Facts, outer: string): void {
  const name = (outer ? outer + '.' : '') + (node.childForFieldName('name')?.text ?? '?')
  const kind = TYPE_KINDS[node.type]
  const mods = modifiers(node)
  const fact: ClassFact = {
    name,
    kind,
    exported: /\bpublic\b/.test(mods),
    extends: [],
    implements: [],
    methods: [],
    properties: [],
    line: line(node),
    endLine: endLine(node),
  }
  const superclass = node.childForFieldName('superclass')
  if (superclass) fact.extends.push(squash(superclass.text.replace(/^extends\s+/, ''), 60))
  const interfaces = node.childForFieldName('interfaces')
  const typeList = (n: Node) =>
    (n.namedChildren.find((c) => c?.type === 'type_list')?.namedChildren ?? []).map((t) =>
      squash(t!.text, 60),
    )
  if (interfaces) pushAll(fact.implements, typeList(interfaces))
  const extendsInterfaces = node.namedChildren.find((c) => c?.type === 'extends_interfaces')
  if (extendsInterfaces) pushAll(fact.extends, typeList(extendsInterfaces))
  out.classes.push(fact)

  const inInterface = kind === 'interface'
  const body = node.childForFieldName('body')
  const members = body?.namedChildren ?? []
  // An enum body keeps its methods and fields in a nested declarations node.
  const decls = members.find((m) => m?.type === 'enum_body_declarations')
  for (const member of decls ? [...members, ...decls.namedChildren] : members) {
    if (!member) continue
    if (member.type === 'method_declaration' || member.type === 'constructor_declaration') {
      const mm = modifiers(member)
      const params = member.childForFieldName('parameters')
      fact.methods.push({
        name: member.childForFieldName('name')?.text ?? '?',
        params: (params?.namedChildren ?? []).map((p) => squash(p!.text, 60)),
        async: false,
        static: /\bstatic\b/.test(mm),
        visibility: visibility(mm, inInterface),
        line: line(member),
        endLine: endLine(member),
      })
    } else if (member.type === 'field_declaration' || member.type === 'constant_declaration') {
      const mm = modifiers(member)
      const type = member.childForFieldName('type')?.text
      for (const d of member.childrenForFieldName('declarator')) {
        const fieldName = d?.childForFieldName('name')?.text
        if (fieldName)
          fact.properties.push({
            name: fieldName,
            static: /\bstatic\b/.test(mm) || member.type === 'constant_declaration',
            visibility: visibility(mm, inInterface),
            line: line(member),
            ...(type ? { type: squash(type, 60) } : {}),
          })
      }
    } else if (member.type === 'enum_constant') {
      const constName = member.childForFieldName('name')?.text
      if (constName)
        fact.properties.push({ name: constName, static: true, visibility: 'public', line: line(member) })
    } else if (Object.hasOwn(TYPE_KINDS, member.type)) {
      typeDeclaration(member, out, name)
    }
  }
}
