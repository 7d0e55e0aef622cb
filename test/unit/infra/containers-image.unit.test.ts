import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { platformNodeOptions } from '../../../infra/node-options.ts';

describe("the image's entrypoint", () => {
  const entrypoint = readFileSync(
    new URL('../../../infra/containers/entrypoint.sh', import.meta.url),
    'utf8',
  );

  it('runs node with the options npm start gives the platform', () => {
    const exec = entrypoint.split('\n').find((line) => line.startsWith('exec node '));
    expect(exec).toBe(`exec node ${platformNodeOptions.join(' ')} --import tsx "$entry"`);
  });

  it('knows the three processes infra/platform.ts runs', () => {
    for (const [name, entry] of [
      ['api', 'api/main.ts'],
      ['consumers', 'consumers/main.ts'],
      ['jobs', 'jobs/main.ts'],
    ])
      expect(entrypoint).toContain(`  ${name}) entry=${entry} ;;`);
  });
});
