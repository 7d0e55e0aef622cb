import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { platformNodeOptions } from '../../../infra/node-options.ts';
import { processEntries } from '../../../infra/platform-units.ts';

describe("the image's entrypoint", () => {
  const entrypoint = readFileSync(
    new URL('../../../infra/containers/entrypoint.sh', import.meta.url),
    'utf8',
  );

  it('runs node with the options npm start gives the platform', () => {
    const exec = entrypoint.split('\n').find((line) => line.startsWith('exec node '));
    expect(exec).toBe(`exec node ${platformNodeOptions.join(' ')} --import tsx "$entry"`);
  });

  it('knows every process infra/platform.ts runs but the stack watcher', () => {
    for (const [name, entry] of Object.entries(processEntries).filter(([name]) => name !== 'stack'))
      expect(entrypoint).toContain(`  ${name}) entry=${entry} ;;`);
  });
});
