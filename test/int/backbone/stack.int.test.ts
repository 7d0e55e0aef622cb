import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { mergeThreadNiceness, threadsNamed } from '../../../infra/stack/clickhouse.ts';
import { stackPaths } from '../../../infra/stack/component.ts';
import { stackStatus, startStack } from '../../../infra/stack/index.ts';
import { readPid } from '../../../infra/stack/processes.ts';
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

/** A thread's niceness: field 19 of /proc/<pid>/task/<tid>/stat. */
function nicenessOf(pid: number, tid: number): number {
  const afterName = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!;
  return Number(afterName.split(' ')[16]);
}

it.skipIf(process.env.STACK === 'testcontainers')(
  "runs ClickHouse's merge threads below its inserts and queries, and only those",
  async () => {
    const config = parseConfig();
    await startStack(config, () => {});
    const pid = readPid(stackPaths(config, 'clickhouse').daemon)!;
    expect(pid).toBeDefined();
    const merges = threadsNamed(pid, 'BackgrProcPool');
    expect(merges.length).toBeGreaterThan(0);
    expect(merges.map((tid) => nicenessOf(pid, tid))).toEqual(merges.map(() => mergeThreadNiceness));
    // The threads answering queries and inserts (the server's own name) keep the default.
    const others = threadsNamed(pid, 'clickhouse-serv');
    expect(others.length).toBeGreaterThan(0);
    expect(new Set(others.map((tid) => nicenessOf(pid, tid)))).toEqual(new Set([0]));
  },
);
