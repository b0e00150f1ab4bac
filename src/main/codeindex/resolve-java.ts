import type { ProjectLayout, Resolution } from './resolve-layout'

/*
 * Java imports (resolve.ts): a type by its fully qualified name, a wildcard by its
 * package; java.*, javax.*, jdk.* and sun.* are the platform.
 */

export function resolveJava(layout: ProjectLayout, source: string): Resolution {
  if (source.endsWith('.*')) {
    const pkg = layout.javaPackages.get(source.slice(0, -2)) ?? []
    if (pkg.length > 0) return { kind: 'internal', targets: [...pkg] }
  } else {
    // `import static a.b.C.method` names a member of the type a.b.C.
    for (let name = source; name.includes('.'); name = name.slice(0, name.lastIndexOf('.'))) {
      const hit = layout.javaTypes.get(name)
      if (hit) return { kind: 'internal', targets: [hit] }
    }
  }
  return { kind: /^(java|javax|jdk|sun)\./.test(source) ? 'builtin' : 'external', targets: [] }
}
