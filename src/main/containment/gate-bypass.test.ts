import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/*
 * Every read of a file in src/main, counted per module, against the list below. A module that
 * reads a project file does it through the gate (gate.ts: `gate.resolve`, `gate.read`,
 * `gate.admits`, the listing filtered by `gate.admitsName`) or says here why its read is not of a
 * project file, or why it shows nothing of one. A new read anywhere fails this test until it is
 * classified: that is the point. (Like the test that every host git call goes through git-safe.)
 */

/** fs calls that read a file or list a folder. */
const READ_CALL =
  /\b(?:readFile|readFileSync|createReadStream|openSync|readdir|readdirSync|opendir|opendirSync|readlink|readlinkSync)\s*\(|\b(?:fs|fsp|promises)\.open\s*\(/g

type Why = { reads: number; why: string }

const THROUGH_THE_GATE: Record<string, Why> = {
  'containment/gate.ts': {
    reads: 3,
    why: 'the gate itself: open without following links, fstat, read, content check',
  },
  'containment/fingerprint.ts': {
    reads: 2,
    why: 'the file tools read here after gate.resolve (O_NOFOLLOW), and loadTextFile asks gate.checkContent',
  },
  'snapshot/capture.ts': {
    reads: 2,
    why: 'paths from sandbox.listFiles (gate.admitsName); O_NOFOLLOW; a secret by content is skipped',
  },
  'snapshot/readThreads.ts': {
    reads: 3,
    why: 'the same reads on helper threads (of one fd opened O_NOFOLLOW, into a reused buffer or whole): the gate content check (secretContentSource)',
  },
  'codeindex/process-file.ts': {
    reads: 1,
    why: 'paths from sandbox.listFiles; O_NOFOLLOW at use; a secret by content is not indexed',
  },
  'agent/prompt.ts': {
    reads: 2,
    why: 'rule files: each resolved by gate.resolve and read by gate.read (links out and secrets refused); the folder listing of .clinerules is names only',
  },
  'tools/read.ts': { reads: 1, why: 'file_info counts the entries of a folder resolved by gate.resolve' },
}

const NOT_A_PROJECT_FILE: Record<string, Why> = {
  'config/dotenv.ts': {
    reads: 2,
    why: "Stepwise's own package.json and the .env beside it; never read when that folder is the project or inside it",
  },
  'config/credentials.ts': { reads: 1, why: "Stepwise's own key file in the data folder" },
  'hosts/electron/keys.ts': { reads: 1, why: "the app's encrypted key file in the data folder" },
  'hosts/electron/protocol.ts': { reads: 1, why: "the app's built renderer assets" },
  'hosts/web/static.ts': { reads: 1, why: "the web host's built renderer assets" },
  'hosts/cli/terminal-approver.ts': {
    reads: 1,
    why: "the user's own edited copy of a proposed change (a temp file)",
  },
  'review/review.ts': { reads: 1, why: 'resources/prompts/review.md' },
  'context/windows.ts': { reads: 1, why: 'resources/models.json' },
  'context/token-tables.ts': { reads: 1, why: 'the tokenizer tables the build writes beside the bundle' },
  'tree-sitter.ts': { reads: 1, why: "tree-sitter's runtime and grammar files shipped with Stepwise" },
  'codeindex/pool.ts': { reads: 1, why: "a grammar package's manifest in node_modules of Stepwise itself" },
  'codeindex/worker.ts': { reads: 1, why: '/proc/thread-self (the worker thread id)' },
  'snapshot/statFiles.ts': { reads: 1, why: '/proc/thread-self (the stat thread id)' },
  'snapshot/changeTracker.ts': { reads: 2, why: '/proc/sys/fs/inotify limits (queued events, user watches)' },
  'store/flatFile.ts': { reads: 1, why: 'state files in the data folder' },
  'sandboxing/bwrap.ts': { reads: 1, why: '/proc/net/unix, to mask listening sockets: never shown' },
  'sandboxing/git-history.ts': {
    reads: 3,
    why: "a .git file's gitdir and commondir, and the names in the git folder's refs, to find which object stores to hide: never shown",
  },
  'sandboxing/sandbox-probe.ts': { reads: 1, why: '/proc/self/ns (probing the command sandbox)' },
  'timetravel/bundle-format.ts': { reads: 3, why: 'session bundles the user exports or imports' },
  'timetravel/restore-apply.ts': {
    reads: 2,
    why: 'opens a project file to WRITE it (O_WRONLY|O_NOFOLLOW); hashes one to tell a hand-made change since an interrupted restore (the bytes are dropped)',
  },
  'containment/temp-files.ts': { reads: 2, why: 'the journals of temp-file writes in the data folder' },
  'store/health.ts': { reads: 2, why: "the store's own marks in the data folder (open processes, damage)" },
  'store/doctor.ts': { reads: 1, why: "the data folder's backups" },
  'store/durable-copy.ts': {
    reads: 2,
    why: 'opens its own copy of a data-folder file (the store, moved or backed up) to sync it',
  },
  'hosts/cli/doctor.ts': { reads: 1, why: "the data folder's backups, by name" },
  'tools/apply.ts': { reads: 1, why: 'creates a temp file to write a change (wx)' },
  'timetravel/fork-worktree.ts': { reads: 1, why: 'checks that a fork target folder is empty (names only)' },
  'service/projects.ts': {
    reads: 1,
    why: "folder names for the open-folder field (the user's own file system)",
  },
}

const SHOWS_NOTHING: Record<string, Why> = {
  'session/code-context.ts': {
    reads: 1,
    why: 'folder names, counted to tell a small tree (bounded walk, denied folders skipped); nothing read or shown',
  },
  'containment/gitignore.ts': { reads: 2, why: '.gitignore files, used as ignore rules, never shown' },
  'containment/secret-links.ts': {
    reads: 1,
    why: 'walks credential folders for their inodes, to refuse hard links to them',
  },
  'containment/project-secrets.ts': {
    reads: 1,
    why: 'walks the project for secret names, to mask them from commands',
  },
  'sandboxing/redact.ts': {
    reads: 1,
    why: 'reads secret files to learn the values to redact from command output',
  },
  'verify/detect.ts': {
    reads: 3,
    why: 'package.json / Makefile / pyproject names of scripts to run; size-bounded, non-blocking, parsed, never shown',
  },
  'verify/project.ts': { reads: 2, why: 'a test report the test run wrote, parsed into pass/fail counts' },
  'git/git-safe.ts': { reads: 1, why: '.git/index, to compare with what git reported; never shown' },
  'git/git-dir.ts': { reads: 1, why: "the .git file's gitdir line, to check the repository stays inside" },
  'snapshot/reproduce.ts': {
    reads: 1,
    why: 'hashes a file to compare with a stored hash; the bytes are dropped',
  },
  'snapshot/directories.ts': {
    reads: 1,
    why: 'folder names for the snapshot listing, each judged by sandbox.isIgnored',
  },
  'snapshot/listingCache.ts': {
    reads: 1,
    why: 'folder names for the snapshot listing, each judged by sandbox.isIgnored',
  },
  'codeindex/watch.ts': { reads: 2, why: 'folder names to watch for changes; nothing read or shown' },
  'mcp/config.ts': { reads: 2, why: 'the MCP configuration, parsed for the servers to start after approval' },
  'mcp/launch.ts': { reads: 1, why: "hashes an approved MCP server's script to notice a change" },
  'mcp/oauth/provider.ts': {
    reads: 1,
    why: "the private key file a user's own MCP entry names for client credentials (never a project's file)",
  },
  'mcp/oauth/store.ts': { reads: 1, why: 'the sign-in tokens file in the data folder, never a project file' },
  'mcp/project-files.ts': {
    reads: 3,
    why: 'hashes the project files an approved MCP server runs, to ask again when one changes',
  },
  'agent/rule-files.ts': {
    reads: 2,
    why: 'fingerprints the rule files (O_NOFOLLOW; a link by its target name) to name one changed since; the bytes are dropped',
  },
  'snapshot/ignoredFolders.ts': {
    reads: 1,
    why: 'lists the folders of ignored folders to stat their files; a changed one is read through gate.read (hashed, and kept when small)',
  },
}

const ALLOWED: Record<string, Why> = { ...THROUGH_THE_GATE, ...NOT_A_PROJECT_FILE, ...SHOWS_NOTHING }

function readCallsPerModule(src: string): Record<string, number> {
  const out: Record<string, number> = {}
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(abs)
      else if (
        /\.ts$/.test(entry.name) &&
        !/\.test\.ts$|test-support\.ts$|[/\\]testing[/\\]|-testing\.ts$/.test(abs)
      ) {
        const code = fs.readFileSync(abs, 'utf8').replace(/^\s*(\/\/|\*|\/\*).*$/gm, '')
        const n = code.match(READ_CALL)?.length ?? 0
        if (n > 0) out[path.relative(src, abs).split(path.sep).join('/')] = n
      }
    }
  }
  walk(src)
  return out
}

describe('reads of project files', () => {
  it('all go through the gate, or are listed here with why they need not', () => {
    const found = readCallsPerModule(path.resolve(import.meta.dirname, '..'))
    const expected = Object.fromEntries(Object.entries(ALLOWED).map(([file, w]) => [file, w.reads]))
    expect(found).toEqual(expected)
  })

  it('counts the read calls the scan is meant to see, and not words in comments', () => {
    const sample = `
      // fs.readFileSync(x) in a comment
      const a = fs.readFileSync(p)
      const b = await fs.promises.readdir(d)
      const c = await fs.open(p, 'r')
      const d = fs.openSync(p, 'r')
      const e = createReadStream(p)
      find.open(i)`
    const code = sample.replace(/^\s*(\/\/|\*|\/\*).*$/gm, '')
    expect(code.match(READ_CALL)?.length).toBe(5)
  })
})
