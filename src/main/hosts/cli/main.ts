// Entry of the `stepwise` CLI (built to out/main/cli.js, run with plain Node).
// Placeholder until the agent loop and its commands land; see docs/cli.md.
process.stdout.write('stepwise 0.1.0\n')
