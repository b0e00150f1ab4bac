/*
 * Files that instruct agents or other tools (docs/sandbox.md#files-that-instruct-agents). A change to
 * one of them is a change to what runs or what an agent believes later — the next session's system
 * prompt, an editor task that runs on folder open, a hook, a CI job, an MCP server — so it always
 * asks, in `auto-edit` too; in `full-auto` it applies and is marked on the timeline and in the end
 * summary. One list, matched on the project-relative POSIX path without regard to letter case
 * (macOS and Windows folders are case-insensitive: `.VSCode/` is `.vscode/` there).
 *
 * Public cases this list answers:
 * - CVE-2025-53773 (Copilot): an agent wrote `.vscode/settings.json` ("chat.tools.autoApprove") and
 *   took over the editor;
 * - CVE-2025-54135 (Cursor, "CurXecute"): a written `.cursor/mcp.json` started a command;
 * - CVE-2025-59536 (Claude Code): project `.claude/settings.json` hooks and MCP servers ran before trust;
 * - "Rules File Backdoor" (Pillar Security, 2025): hidden instructions in `.cursorrules` and
 *   `.github/copilot-instructions.md` steer every later generation.
 */

/** Files named anywhere in the project (an agent reads nested ones for that folder). */
const RULE_FILE_NAMES = [
  'agents.md',
  'agent.md',
  'claude.md',
  'claude.local.md',
  'gemini.md',
  'conventions.md',
  '.cursorrules',
  '.windsurfrules',
  '.clinerules',
  '.roorules',
  '.goosehints',
  '.aider.conf.yml',
  '.mcp.json',
  '.envrc',
  '.gitlab-ci.yml',
  '.gitattributes',
  '.gitmodules',
  '.pre-commit-config.yaml',
  '.lefthook.yml',
  'lefthook.yml',
] as const

/** Folders whose every file is read by an agent, an editor, a hook runner or CI. */
const AGENT_FOLDERS = [
  '.clinerules/',
  '.roo/',
  '.cursor/',
  '.claude/',
  '.gemini/',
  '.codex/',
  '.windsurf/',
  '.continue/',
  '.amazonq/',
  '.vscode/',
  '.idea/',
  '.zed/',
  '.devcontainer/',
  '.husky/',
  '.githooks/',
  '.github/workflows/',
  '.github/actions/',
  '.circleci/',
  '.buildkite/',
  // git's own config and hooks: the file tools refuse .git/, but a project may keep its hooks elsewhere.
  '.git/',
] as const

/** Single files at a fixed place. */
const AGENT_PATHS = [
  '.github/copilot-instructions.md',
  '.github/dependabot.yml',
  '.gitlab/ci.yml',
  '.travis.yml',
  'azure-pipelines.yml',
  'jenkinsfile',
] as const

/**
 * Whether a project-relative path is a file that instructs agents or other tools. `package.json`
 * is not on the list: its scripts run code, but every command that runs them already asks (or is
 * on the allowlist the user chose), and an agent edits it for ordinary dependency work — asking on
 * every such edit would teach users to click through.
 */
export function isAgentFile(relPath: string): boolean {
  const p = relPath
    .replaceAll('\\', '/')
    .replace(/^\.\/+/, '')
    .toLowerCase()
  if (p === '') return false
  const segments = p.split('/')
  const name = segments.at(-1) ?? ''
  if ((RULE_FILE_NAMES as readonly string[]).includes(name)) return true
  if ((AGENT_PATHS as readonly string[]).includes(p)) return true
  const folders = segments.slice(0, -1)
  // A folder on the list counts at any depth (`packages/app/.vscode/tasks.json`), like the name list.
  for (let i = 0; i < folders.length; i++) {
    const rest = `${folders.slice(i).join('/')}/`
    if (AGENT_FOLDERS.some((f) => rest.startsWith(f))) return true
  }
  return false
}
