/**
 * Options for the schema checks every agent step runs (each stored event, each tool call's
 * arguments). Without `jitless`, zod compiles a fast path for each object schema the first
 * time it parses one (`new Function`), and a CLI session is a new process that pays those
 * compiles inside its first step: the first parse of a session's nine event kinds took
 * 17–18 ms compiled against 7–8 ms without, while a later parse costs 11–13 µs compiled
 * against ~15 µs without — a few microseconds a step (docs/benchmarks.md).
 */
export const PER_STEP_PARSE = { jitless: true } as const
