import { leavesProject } from '../argv'
import { options, type Normalised, type Option } from '../options'
import { WRITES, runs, type ProgramRule } from './types'

/*
 * The project's own checks (npm test, go test, cargo check, pytest, make test, …)
 * run the project's code by design; what must not run unasked is an option that
 * points them at other code or other files: a shell for scripts, a wrapper or
 * runner program, a config or plugin from elsewhere, an output outside the project.
 */

/** An option value that leaves the project (`/abs`, `../x`, `~/x`). */
const leaves = (value: string | undefined) => value !== undefined && leavesProject(value)

const firstOption = (parsed: Normalised, test: (o: Option) => boolean) => parsed.options.find(test)

/** npm/pnpm/yarn test|run X|build|…: npm takes any `--key=value` as config (`--script-shell=sh`), so only known-harmless options pass. */
export const PACKAGE_SCRIPT: ProgramRule = {
  projectOnly: true,
  table: options({
    long: 'silent quiet loglevel= if-present workspaces workspace= include-workspace-root color=? no-color recursive filter= parallel stream reporter= aggregate-output no-bail',
    short: 's q w= r F=',
  }),
  check(parsed) {
    const odd = firstOption(parsed, (o) => o.unknown)
    return odd
      ? `\`${odd.raw}\` before \`--\` may set npm configuration (\`--script-shell\`, \`--node-options\`, …)`
      : null
  },
}

/** pnpm and yarn pass the words after the script name to the script (`yarn test --coverage`). */
export const SCRIPT_ARGS: ProgramRule = {
  projectOnly: true,
  table: { ...PACKAGE_SCRIPT.table, stopAtOperand: true },
}

/** Test runners given a report file: only inside the project (the tools' own reports are). */
const REPORT_RUNNER: ProgramRule = {
  projectOnly: true,
  table: options({ long: 'outputFile= outputFile.json= config= root= dir=', short: 'c= r=' }),
  check(parsed) {
    const out = firstOption(
      parsed,
      (o) => o.raw.startsWith('--outputFile') && leaves(o.value ?? o.raw.split('=')[1]),
    )
    return out ? `\`${out.raw}\` writes outside the project` : null
  },
}

export const VITEST = REPORT_RUNNER
export const JEST = REPORT_RUNNER

/** tsc reads options case-insensitively and never abbreviates; `--noEmit false` emits. */
export const TSC: ProgramRule = {
  projectOnly: true,
  table: { abbreviations: false, long: { project: 'required', p: 'required' }, short: { p: 'required' } },
  check(parsed) {
    if (parsed.operands.some((o) => o.toLowerCase() === 'false')) return '`tsc --noEmit false` writes files'
    const bad = [
      '--generatetrace',
      '--build',
      '--watch',
      '--outfile',
      '--outdir',
      '--declarationdir',
      '--tsbuildinfofile',
    ]
    const hit = firstOption(
      parsed,
      (o) => bad.includes(o.raw.split('=')[0].toLowerCase()) || o.raw === '-b' || o.raw === '-w',
    )
    return hit ? `\`tsc\` with \`${hit.raw}\` writes files or keeps running` : null
  },
}

export const ESLINT: ProgramRule = {
  projectOnly: true,
  table: options({
    long: 'fix fix-dry-run fix-type= output-file= rulesdir= resolve-plugins-relative-to= cache cache-location= cache-strategy= format= config= no-config-lookup ext= max-warnings= quiet debug init',
    short: 'o= f= c=',
  }),
  forbid: {
    '--fix': 'edits files',
    '--output-file': WRITES,
    '-o': WRITES,
    '--rulesdir': 'loads rules from a folder',
    '--resolve-plugins-relative-to': 'loads plugins from elsewhere',
    '--cache-location': WRITES,
    '--init': 'installs packages',
  },
}

export const PRETTIER: ProgramRule = {
  projectOnly: true,
  table: options({
    long: 'check write list-different cache cache-location= cache-strategy= config= ignore-path= plugin= log-level=',
    short: 'c w l',
  }),
  forbid: { '--write': 'edits files', '-w': 'edits files', '--cache-location': WRITES },
}

export const PYTEST: ProgramRule = {
  projectOnly: true,
  table: options({
    long:
      'basetemp= junitxml= junit-xml= junitprefix= resultlog= result-log= pastebin= debug=? override-ini= ' +
      'config-file= rootdir= confcutdir= cache-clear last-failed failed-first exitfirst maxfail= ' +
      'capture= tb= verbose quiet collect-only co import-mode= durations= strict-markers deselect= ignore= ' +
      'last-failed-no-failures lf ff sw stepwise new-first nf runxfail showlocals no-header no-summary color=',
    short: 'k= m= x v q s r= p= o= c= W=',
  }),
  forbid: {
    '--basetemp': 'empties the folder it is given',
    '--junitxml': WRITES,
    '--junit-xml': WRITES,
    '--resultlog': WRITES,
    '--result-log': WRITES,
    '--pastebin': 'uploads the results',
    '--debug': WRITES,
    '-p': 'loads a plugin module',
    '--override-ini': 'overrides the configuration (addopts, plugins, …)',
    '-o': 'overrides the configuration (addopts, plugins, …)',
    '--config-file': 'reads another configuration',
    '-c': 'reads another configuration',
  },
}

/** Go's flag package: `-name` or `--name`, `=` or a separate value, never abbreviated. */
export const GO: ProgramRule = {
  projectOnly: true,
  table: options(
    {
      long:
        'exec= toolexec= vettool= o= overlay= modfile= pkgdir= C= coverprofile= cpuprofile= memprofile= ' +
        'blockprofile= mutexprofile= trace= outputdir= run= bench= count= timeout= tags= p= parallel= cpu= ' +
        'coverpkg= covermode= shuffle= skip= list= benchtime= fuzz= fuzztime= ldflags= gcflags= asmflags= ' +
        'mod= buildvcs= pgo= v x n a race cover json short failfast trimpath work',
    },
    { singleDashLong: true, abbreviations: false },
  ),
  // go splits -exec and -toolexec on blanks and adds the binary (or tool) and its arguments.
  forbid: {
    '-exec': runs('words', { args: 'any' }),
    '-toolexec': runs('words', { args: 'any' }),
    '-vettool': runs('program', { args: 'any' }),
    '-o': WRITES,
    '-overlay': 'swaps source files',
    '-modfile': 'reads another go.mod',
    '-pkgdir': WRITES,
    '-C': 'runs in another folder',
    '-cpuprofile': WRITES,
    '-memprofile': WRITES,
    '-blockprofile': WRITES,
    '-mutexprofile': WRITES,
    '-trace': WRITES,
    '-outputdir': WRITES,
  },
  check(parsed) {
    const out = firstOption(parsed, (o) => o.names[0] === '-coverprofile' && leaves(o.value))
    return out ? `\`${out.raw}\` writes outside the project` : null
  },
}

/** cargo (clap, no abbreviations): `--config` can set a runner or a rustc wrapper. */
export const CARGO: ProgramRule = {
  projectOnly: true,
  table: options(
    {
      long:
        'config= target-dir= manifest-path= fix allow-dirty allow-staged artifact-dir= out-dir= ' +
        'package= workspace all exclude= lib bin= bins test= tests example= examples bench= benches all-targets ' +
        'features= all-features no-default-features release profile= target= jobs= keep-going frozen locked offline ' +
        'message-format= color= verbose quiet no-run no-fail-fast doc timings=?',
      short: 'Z= C= p= F= j= r v q',
    },
    { abbreviations: false },
  ),
  forbid: {
    '--config': 'can set a runner or a compiler wrapper',
    '-Z': 'turns on unstable behaviour',
    '-C': 'runs in another folder',
    '--fix': 'edits files',
    '--allow-dirty': 'edits files',
    '--allow-staged': 'edits files',
    '--artifact-dir': WRITES,
    '--out-dir': WRITES,
  },
  check(parsed) {
    const out = firstOption(
      parsed,
      (o) => ['--target-dir', '--manifest-path'].includes(o.names[0]) && leaves(o.value),
    )
    return out ? `\`${out.raw}\` points outside the project` : null
  },
}

const MAVEN_PROPERTIES =
  /^(test|it\.test|skipTests|maven\.test\.skip|skipITs|surefire\.\w+|failsafe\.\w+|failIfNoTests)(=.*)?$/

export const MAVEN: ProgramRule = {
  table: options({
    long: 'file= settings= global-settings= toolchains= define= quiet batch-mode offline errors no-transfer-progress projects= also-make fail-at-end fail-fast',
    short: 'f= s= t= D= q B o e P= T= X U N',
  }),
  forbid: {
    '--file': 'builds another project',
    '-f': 'builds another project',
    '--settings': 'reads other settings (repositories, mirrors)',
    '-s': 'reads other settings (repositories, mirrors)',
    '--global-settings': 'reads other settings',
    '--toolchains': 'picks other toolchains',
    '-t': 'picks other toolchains',
  },
  check(parsed) {
    const prop = firstOption(
      parsed,
      (o) => (o.names[0] === '-D' || o.names[0] === '--define') && !MAVEN_PROPERTIES.test(o.value ?? ''),
    )
    return prop
      ? `\`${prop.raw}\` sets a property that may change what runs (only test selection runs unasked)`
      : null
  },
}

const MAKE_TARGETS = new Set(['test', 'check', 'build', 'lint', 'all'])

/**
 * `make test|check|build|lint` runs the project's own recipes, like `npm test`;
 * not another makefile, extra code (`--eval`), variable overrides (`SHELL=…`,
 * `CC=…`) or targets beyond those.
 */
export const MAKE: ProgramRule = {
  table: options({
    long: 'eval= file= makefile= include-dir= directory= jobs=? keep-going silent quiet just-print dry-run always-make question touch what-if= new-file= assume-new= old-file= assume-old= environment-overrides',
    short: 'E= f= I= C= j=? k s n B q t W= o= e',
  }),
  forbid: {
    '--eval': { why: 'runs extra make code', effect: { kind: 'make' } },
    '-E': { why: 'runs extra make code', effect: { kind: 'make' } },
    '--file': 'reads another makefile',
    '--makefile': 'reads another makefile',
    '-f': 'reads another makefile',
    '--include-dir': 'reads makefiles from another folder',
    '-I': 'reads makefiles from another folder',
    '--directory': 'runs another folder’s makefile',
    '-C': 'runs another folder’s makefile',
    '--environment-overrides': 'lets variables override the makefile',
    '-e': 'lets variables override the makefile',
    '--touch': 'touches files',
    '-t': 'touches files',
  },
  check(parsed) {
    const odd = parsed.operands.find((o) => !MAKE_TARGETS.has(o))
    if (odd === undefined) return null
    return odd.includes('=')
      ? `\`make ${odd}\` overrides a variable, which can change every recipe`
      : `\`make ${odd}\` runs a target other than test, check, build, lint`
  },
}

export const RUFF: ProgramRule = {
  projectOnly: true,
  table: options({
    long: 'fix no-fix unsafe-fixes add-noqa output-file= watch config= select= ignore= statistics show-fixes diff',
    short: 'o= e n q s w',
  }),
  forbid: {
    '--fix': 'edits files',
    '--unsafe-fixes': 'edits files',
    '--add-noqa': 'edits files',
    '--output-file': WRITES,
    '-o': WRITES,
  },
}
