import { afterAll, describe, expect, it } from 'vitest';
import { ClickHouseReads } from '../../../api/clickhouse-reads.ts';
import { DependencyAway } from '../../../api/errors.ts';
import { createClickHouse } from '../../../platform/clickhouse.ts';
import { refusedBaseUrl } from '../../harness/model-server.ts';

// The API's reads of ClickHouse (api/clickhouse-reads.ts) against the real server: a read in
// flight is given up, as a 503 DependencyAway, the moment the watch's signal says ClickHouse is
// away; a server that refuses connections is a 503 too; and a read on a live server runs to its
// end, however long. The chaos test hangs ClickHouse itself (test/int/backbone/chaos.int.test.ts).

const clickhouse = createClickHouse();
afterAll(() => clickhouse.close());

describe('ClickHouseReads', () => {
  it('gives up a read in flight as soon as ClickHouse is seen away', async () => {
    const seenAway = new AbortController();
    const reads = new ClickHouseReads(clickhouse, () => seenAway.signal);
    const started = Date.now();
    const read = reads.read(async (reader) => (await reader.query({ query: 'SELECT sleep(3)' })).text());
    setTimeout(() => seenAway.abort(), 200);
    await expect(read).rejects.toBeInstanceOf(DependencyAway);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses at once while ClickHouse is away, without asking it', async () => {
    let asked = false;
    const reads = new ClickHouseReads(clickhouse, () => AbortSignal.abort());
    const read = reads.read(async () => {
      asked = true;
    });
    await expect(read).rejects.toThrow(
      /ClickHouse, where traces and requests are read from, cannot be reached/,
    );
    expect(asked).toBe(false);
  });

  it('answers a refused connection with a 503, not a 500', async () => {
    const nowhere = createClickHouse({ url: new URL(await refusedBaseUrl()).origin });
    try {
      const reads = new ClickHouseReads(nowhere, () => new AbortController().signal);
      const read = reads.read(async (reader) => (await reader.query({ query: 'SELECT 1' })).text());
      await expect(read).rejects.toMatchObject({ status: 503, code: 'unavailable' });
    } finally {
      await nowhere.close();
    }
  });

  it('lets a long read on a live server run to its end', async () => {
    const reads = new ClickHouseReads(clickhouse, () => new AbortController().signal);
    const text = await reads.read(async (reader) =>
      (await reader.query({ query: 'SELECT sleep(2) + 1 AS one', format: 'JSONEachRow' })).json(),
    );
    expect(text).toEqual([{ one: 1 }]);
  });
});
