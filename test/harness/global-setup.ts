import type { TestProject } from 'vitest/node';
import type { StackProvider } from './providers/provider.ts';

// Vitest's global setup for integration and end-to-end tests: one real stack for the whole run,
// from local processes (default) or from containers when STACK=testcontainers.
export default async function setup(project: TestProject) {
  const log = (line: string) => process.stderr.write(`[harness] ${line}\n`);
  const provider: StackProvider =
    process.env.STACK === 'testcontainers'
      ? (await import('./providers/testcontainers.ts')).testcontainersProvider
      : (await import('./providers/local.ts')).localProvider;
  const started = Date.now();
  const { environment, stop } = await provider.start(log);
  log(`${provider.name} stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  Object.assign(process.env, environment);
  project.provide('stackEnvironment', environment);
  return stop;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stackEnvironment: Record<string, string>;
  }
}
