// Node options of the platform's processes, as `npm start` runs them (and the benchmarks, to
// measure the same thing). A larger young generation: the hot paths allocate many short-lived
// objects, and it measured fewer and cheaper garbage collections (bench/ingest).
export const platformNodeOptions = ['--max-semi-space-size=64'];
