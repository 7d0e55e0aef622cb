#!/usr/bin/env node
// The `orrery` tool: its TypeScript runs as is on Node 24 (type stripping), with no build step.
// An older Node would stop at the first type annotation; say what is needed instead.
if (!process.features.typescript) {
  process.stderr.write(`error: orrery needs Node 24 or newer (this is Node ${process.versions.node}).\n`);
  process.exit(1);
}
const { runProcess } = await import('../src/main.ts');
await runProcess();
