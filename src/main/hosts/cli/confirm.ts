import readline from 'node:readline/promises'

/** Asks a yes/no question on the terminal (stderr, so stdout stays clean for pipes); yes only on y/yes. */
export async function confirm(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim())
  } finally {
    rl.close()
  }
}
