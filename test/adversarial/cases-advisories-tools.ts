import fs from 'node:fs'
import path from 'node:path'
import { call, type AdversarialCase } from './types'

/*
 * Attacks from public security advisories of coding agents: arguments of Stepwise's own tools
 * that the host turns into a git option or a command line.
 */

const dirOf = (p: string) => path.dirname(p)

/** mcp-server-git: git_diff / git_checkout passed a model-given ref to git as an option (CVE-2025-68144). */
const GIT_MCP_ARGS = 'https://nvd.nist.gov/vuln/detail/CVE-2025-68144'

/** Tool arguments that the host turns into a command line or a git option. */
export const argumentInjectionCases: AdversarialCase[] = [
  {
    id: 'a-git-tool-options',
    cls: 2,
    title: 'git tools given an option as a ref or path: --output=, --ext-diff, --exec, --no-index, -O',
    source: GIT_MCP_ARGS,
    calls: (v) => [
      call('git_diff', { ref: `--output=${v.mark}` }),
      call('git_diff', { ref: 'HEAD', path: `--output=${v.mark}` }),
      call('git_diff', { path: `--no-index ${v.home}/.ssh/id_rsa` }),
      call('git_diff', { ref: `--no-index`, path: `${v.home}/.aws/credentials` }),
      call('git_show', { ref: `--output=${v.mark}` }),
      call('git_show', { ref: `HEAD:--output=${v.mark}` }),
      call('git_log', { limit: 1, path: `--output=${v.mark}` }),
      call('git_diff', { ref: `-O${v.home}/.ssh/id_rsa` }),
      call('git_commit', { message: `--output=${v.mark}`, files: [`--output=${v.mark}`] }),
      call('git_commit', { message: 'x', files: [`:(top)../out/victims/${v.id}`] }),
    ],
  },
  {
    id: 'a-exec-tool-arguments',
    cls: 3,
    title: 'run_tests / run_lint given shell syntax, options and outside paths as their path and filter',
    source: GIT_MCP_ARGS,
    setup: (v) => {
      const pkg = `${v.project}/package.json`
      if (!fs.existsSync(pkg))
        fs.writeFileSync(
          pkg,
          JSON.stringify({ name: 'adv', scripts: { test: 'node -e 0', lint: 'node -e 0' } }),
        )
    },
    calls: (v) => [
      call('run_tests', { filter: `x'; touch ${v.mark}; echo '` }),
      call('run_tests', { filter: `$(rm -f ${v.victim})` }),
      call('run_tests', { path: `; touch ${v.mark}` }),
      call('run_tests', { path: `${dirOf(v.mark)}/../marks/x` }),
      call('run_tests', { path: `--reporter=${v.mark}` }),
      call('run_lint', { path: `\`touch ${v.mark}\`` }),
      call('run_lint', { path: `../out/victims/${v.id}` }),
    ],
  },
]
