// Node options of the platform's processes, as `npm start` runs them (and the benchmarks, to
// measure the same thing).
// - A larger young generation: the hot paths allocate many short-lived objects, and it measured
//   fewer and cheaper garbage collections (bench/ingest).
// - A larger first old generation: V8 sizes the old generation from what survives its last full
//   collection, so a process that holds little (the consumers keep about 25 MB) collected it in
//   full about once a second under load, as batches waiting for their insert were promoted. At
//   eight telemetrygen exporters (bench/peer) the consumers ran 16 full collections in 20 s, and
//   their GC threads took 0.040 to 0.048 cores; starting at 256 MB, 2 and 0.012 to 0.014.
export const platformNodeOptions = ['--max-semi-space-size=64', '--initial-old-space-size=256'];
