import { expect, it } from 'vitest';
import { stackStatus, startStack } from '../../../infra/stack/index.ts';
import { parseConfig } from '../../../platform/config.ts';

// With STACK=testcontainers the stack is containers, not ours to start: reported as skipped there.
it.skipIf(process.env.STACK === 'testcontainers')(
  'reuses a healthy running stack on a second start',
  async () => {
    const config = parseConfig();
    const lines: string[] = [];
    const outcomes = await startStack(config, (line) => lines.push(line));
    expect(outcomes).toEqual({
      postgres: 'reused',
      clickhouse: 'reused',
      kafka: 'reused',
      registry: 'reused',
      // The default model, a part of the stack while ORRERY_MODELS is unset (issue 13).
      ...(config.inference.localModel ? { model: 'reused' } : {}),
    });
    expect(lines.filter((line) => /starting|installing|fetching/.test(line))).toEqual([]);
    expect(await stackStatus(config)).toEqual({
      postgres: 'healthy',
      clickhouse: 'healthy',
      kafka: 'healthy',
      registry: 'healthy',
      ...(config.inference.localModel ? { model: 'healthy' } : {}),
    });
  },
);
