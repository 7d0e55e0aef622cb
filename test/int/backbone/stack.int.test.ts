import { expect, it } from 'vitest';
import { stackStatus, startStack } from '../../../infra/stack/index.ts';
import { parseConfig } from '../../../platform/config.ts';

it('reuses a healthy running stack on a second start', async () => {
  if (process.env.STACK === 'testcontainers') return;
  const config = parseConfig();
  const lines: string[] = [];
  const outcomes = await startStack(config, (line) => lines.push(line));
  expect(outcomes).toEqual({ postgres: 'reused', clickhouse: 'reused', kafka: 'reused', registry: 'reused' });
  expect(lines.filter((line) => /starting|installing|fetching/.test(line))).toEqual([]);
  expect(await stackStatus(config)).toEqual({
    postgres: 'healthy',
    clickhouse: 'healthy',
    kafka: 'healthy',
    registry: 'healthy',
  });
});
