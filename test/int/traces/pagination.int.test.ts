import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import {
  agentTrace,
  dayAt,
  get,
  orgWithKey,
  publish,
  spansReceived,
  type TraceListBody,
  untilTraceCount,
} from './fixtures.ts';

// GET /api/traces pages: newest first, a keyset cursor on (start, trace id).

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

describe('pagination', () => {
  it('walks every trace once, newest first, even with traces inserted between pages', async () => {
    const own = await orgWithKey(platform);
    // Seven traces; two pairs start at the same instant, so the trace id breaks the tie.
    const starts = [1, 2, 2, 3, 4, 4, 5].map((minute) => dayAt(1, 9, minute));
    const traces = starts.map((start) => agentTrace(start));
    await publish(
      platform,
      traces.map((trace) => spansReceived(own.orgId, trace.traceId, trace.spans)),
    );
    await untilTraceCount(platform, own.key, 7);
    const expected = traces
      .map((trace, index) => ({ id: trace.traceId, start: starts[index]!.getTime() }))
      .sort((a, b) => b.start - a.start || (a.id < b.id ? 1 : -1))
      .map((trace) => trace.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : '';
      const { body } = await get<TraceListBody>(platform, own.key, `/api/traces?limit=3${query}`);
      seen.push(...body.data.map((item) => item.trace_id));
      cursor = body.next_cursor;
      pages += 1;
      if (pages === 1) {
        // A newer trace and an older one arrive while the caller reads page 2 onwards.
        const newer = agentTrace(dayAt(1, 9, 30));
        const older = agentTrace(dayAt(1, 8));
        await publish(platform, [
          spansReceived(own.orgId, newer.traceId, newer.spans),
          spansReceived(own.orgId, older.traceId, older.spans),
        ]);
        await untilTraceCount(platform, own.key, 9);
        expected.push(older.traceId);
      }
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);
  });
});
