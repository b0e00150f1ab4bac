// @ts-check
import { builtinModules } from 'node:module'
import { builtinRules } from 'eslint/use-at-your-own-risk'
import reactHooks from 'eslint-plugin-react-hooks'
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'

// ESLint's own "recommended" set, rebuilt from the rule metadata: @eslint/js is not a dependency.
const eslintRecommended = Object.fromEntries(
  [...builtinRules].filter(([, rule]) => rule.meta?.docs?.recommended).map(([name]) => [name, 'error']),
)

const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'fetch',
  ].map((name) => [name, 'readonly']),
)

// Layering (see docs/architecture.md): the folder says where code may run. test/architecture.test.ts checks the
// same rules by scanning imports, so a disabled lint rule cannot hide a violation.
const electronOnlyInHosts = {
  name: 'electron',
  message:
    'Only src/main/hosts/electron/**, src/main/electron-main.ts and src/preload/** may import electron.',
}
const noElectronSubpath = { group: ['electron/*'], message: electronOnlyInHosts.message }
const noNode = { group: ['node:*'], message: 'This layer runs without Node: no Node builtins.' }
const noMain = { group: ['**/main/**', '**/main'], message: 'Only the main process may import src/main.' }
const noRenderer = {
  group: ['**/renderer/**', '**/renderer'],
  message: 'src/renderer is browser code; share through src/shared instead.',
}
const nodeBuiltinPaths = builtinModules.map((name) => ({ name, message: 'This layer runs without Node.' }))

// Spreading an array into a call passes every element as an argument on the stack: past roughly a
// hundred thousand elements V8 throws "Maximum call stack size exceeded" (a 50 MB file's lines did).
// The rule is simple on purpose: no spread into these calls at all, bounded or not.
const SPREAD_WHY =
  'spreads every element onto the call stack and throws "Maximum call stack size exceeded" on large arrays'
const noSpreadIntoCalls = [
  {
    selector: 'CallExpression[callee.property.name=/^(push|unshift)$/] > SpreadElement',
    message: `push(...items)/unshift(...items) ${SPREAD_WHY}. Use pushAll(target, items) from src/shared/arrays.ts, a for…of loop, or concat.`,
  },
  {
    selector: 'CallExpression[callee.object.name="Math"][callee.property.name=/^(max|min)$/] > SpreadElement',
    message: `Math.max/min(...items) ${SPREAD_WHY}. Use maxOf/minOf from src/shared/arrays.ts or a reduce loop.`,
  },
  {
    selector:
      'CallExpression[callee.object.name="String"][callee.property.name=/^(fromCharCode|fromCodePoint)$/] > SpreadElement',
    message: `String.fromCharCode/fromCodePoint(...codes) ${SPREAD_WHY}. Use TextDecoder, or convert in chunks.`,
  },
]

// VS Code's rule against `in`: it asks a structural question of a value whose type should already say.
// A rule of its own (not no-restricted-syntax, which is an error for the spreads above) so it can warn.
const noInOperator = {
  meta: {
    type: 'suggestion',
    docs: { description: 'Disallow the `in` operator' },
    messages: {
      noIn: "Don't probe a union with `in`: discriminate on a field (`ok`, `kind`, `type`), or decode unknown input with zod.",
    },
    schema: [],
  },
  /** @param {import('eslint').Rule.RuleContext} context */
  create(context) {
    return {
      /** @param {import('estree').BinaryExpression} node */
      "BinaryExpression[operator='in']"(node) {
        context.report({ node, messageId: 'noIn' })
      },
    }
  },
}

export default defineConfig(
  {
    ignores: [
      'out/**',
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'test-results/**',
      'playwright-report/**',
      '.cache/**',
      '**/*.d.ts.map',
    ],
  },
  {
    files: ['**/*.{js,mjs,cjs,ts,tsx}'],
    rules: eslintRecommended,
  },
  tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: NODE_GLOBALS },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs['recommended-latest'].rules,
      'no-restricted-imports': [
        'error',
        { paths: [electronOnlyInHosts, ...nodeBuiltinPaths], patterns: [noElectronSubpath, noNode, noMain] },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnlyInHosts, ...nodeBuiltinPaths],
          patterns: [noElectronSubpath, noNode, noMain, noRenderer],
        },
      ],
    },
  },
  {
    files: ['src/main/**/*.ts'],
    ignores: ['src/main/hosts/electron/**', 'src/main/electron-main.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [electronOnlyInHosts], patterns: [noElectronSubpath, noRenderer] },
      ],
    },
  },
  {
    files: ['src/main/hosts/electron/**/*.ts', 'src/main/electron-main.ts', 'src/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [noRenderer] }],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs,ts,tsx}'],
    rules: { 'no-restricted-syntax': ['error', ...noSpreadIntoCalls] },
  },
  // Shape of the code: errors, so nothing new gets past them. What stood when they came in is recorded
  // per file and rule in eslint-suppressions.json (ESLint's bulk suppressions): a file may not add
  // to its count, and `npx eslint . --prune-suppressions` lowers the counts as code is split or typed.
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { stepwise: { rules: { 'no-in-operator': noInOperator } } },
    rules: {
      // 80 lines without blanks and comments: a function that does one thing fits on a screen. A
      // component or a closure that owns state (createX) past it holds more than one concept.
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
      // Four positional parameters at most; past that the caller cannot tell which is which: pass an object.
      'max-params': ['error', { max: 4 }],
      'stepwise/no-in-operator': 'error',
      // A cast that narrows (`x as Foo` where x is wider) is an unchecked claim: decode with zod or narrow
      // with a discriminant instead.
      '@typescript-eslint/no-unsafe-type-assertion': 'error',
    },
  },
)
