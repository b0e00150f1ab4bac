// A Vitest reporter that keeps what its JSON report leaves out: errors no test owns (an unhandled
// rejection, a worker that died) and errors of a file or suite as a whole (a failing `afterAll`).
// Either fails the run with every test passed; `npm test` names them again under its summary, so
// the last lines of a red run say why. Writes JSON to $STEPWISE_VITEST_ERRORS.
import fs from 'node:fs'
import path from 'node:path'

function describe(error) {
  const text = `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`
  return text.split('\n')[0].slice(0, 300)
}

function tasksOf(task) {
  return [task, ...(task.tasks ?? []).flatMap(tasksOf)]
}

export default class VitestErrorsReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    const out = process.env.STEPWISE_VITEST_ERRORS
    if (!out) return
    const errors = unhandledErrors.map((error) => ({
      file: null,
      where: error?.VITEST_TEST_PATH
        ? `unhandled, during ${path.relative(process.cwd(), error.VITEST_TEST_PATH)}${error.VITEST_TEST_NAME ? ` › ${error.VITEST_TEST_NAME}` : ''}`
        : 'unhandled',
      error: describe(error),
    }))
    for (const module of testModules) {
      for (const task of tasksOf(module.task)) {
        // A test's own failure is in the JSON report already; here only files and suites.
        if (task.type === 'test' || task.result?.state !== 'fail') continue
        for (const error of task.result.errors ?? []) {
          const file = path.relative(process.cwd(), module.task.filepath)
          const where = task === module.task ? file : `${file} › ${task.name}`
          errors.push({ file, where, error: describe(error) })
        }
      }
    }
    fs.mkdirSync(path.dirname(out), { recursive: true })
    fs.writeFileSync(out, JSON.stringify(errors, null, 2))
  }
}
