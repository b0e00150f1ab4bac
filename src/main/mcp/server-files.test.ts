import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { serverFileBinds } from './server-files'

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** A temp folder holding a server package (package.json, dist/server.js), a project and a fake home. */
function layout() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-server-files-')))
  made.push(base)
  const pkg = path.join(base, 'srv')
  fs.mkdirSync(path.join(pkg, 'dist'), { recursive: true })
  fs.writeFileSync(path.join(pkg, 'package.json'), '{}')
  fs.writeFileSync(path.join(pkg, 'dist', 'server.js'), '')
  const project = path.join(base, 'project')
  fs.mkdirSync(project)
  fs.writeFileSync(path.join(project, 'tool.js'), '')
  const home = path.join(base, 'home')
  fs.mkdirSync(path.join(home, '.aws'), { recursive: true })
  fs.writeFileSync(path.join(home, '.aws', 'server.js'), '')
  fs.writeFileSync(path.join(home, 'package.json'), '{}')
  fs.writeFileSync(path.join(home, 'loose.js'), '')
  return { base, pkg, project, home }
}

describe('serverFileBinds', () => {
  it("binds back the package around a server's script, read-only, from an absolute or relative path", () => {
    const { base, pkg, project, home } = layout()
    const script = path.join(pkg, 'dist', 'server.js')
    expect(serverFileBinds({ command: 'node', args: [script, '--stdio'] }, project, project, home)).toEqual([
      '--ro-bind',
      pkg,
      pkg,
    ])
    expect(
      serverFileBinds({ command: 'node', args: ['../srv/dist/server.js'] }, project, project, home),
    ).toEqual(['--ro-bind', pkg, pkg])
    expect(serverFileBinds({ command: script, args: [] }, base, project, home)).toEqual([
      '--ro-bind',
      pkg,
      pkg,
    ])
  })

  it('binds nothing for a program on PATH, a file in the project, or one that does not exist', () => {
    const { pkg, project, home } = layout()
    expect(
      serverFileBinds({ command: 'npx', args: ['-y', '@scope/server'] }, project, project, home),
    ).toEqual([])
    expect(
      serverFileBinds({ command: 'node', args: ['tool.js', './tool.js'] }, project, project, home),
    ).toEqual([])
    expect(
      serverFileBinds({ command: 'node', args: [path.join(pkg, 'missing.js')] }, project, project, home),
    ).toEqual([])
  })

  it('never binds the home folder, a credential folder, or a folder around the project', () => {
    const { base, project, home } = layout()
    // ~/package.json would make the home itself the package root.
    expect(
      serverFileBinds({ command: 'node', args: [path.join(home, 'loose.js')] }, project, project, home),
    ).toEqual([])
    expect(
      serverFileBinds(
        { command: 'node', args: [path.join(home, '.aws', 'server.js')] },
        project,
        project,
        home,
      ),
    ).toEqual([])
    // A package root that holds the project would turn the writable project read-only.
    fs.writeFileSync(path.join(base, 'package.json'), '{}')
    fs.writeFileSync(path.join(base, 'run.js'), '')
    expect(
      serverFileBinds({ command: 'node', args: [path.join(base, 'run.js')] }, project, project, home),
    ).toEqual([])
  })
})
