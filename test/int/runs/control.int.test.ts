import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postCharges } from '../../../jobs/post-charges.ts';
import { eventually } from '../../harness/platform.ts';
import { givenRunApi, ndjson, prepareTimeoutMs, type RunApi } from './given.ts';

// Following, stopping and the spend ceiling (issue 16, item 1): a follower gets lines as they are
// printed and the end line; a stop kills a running command and answers the run; a stop on an
// ended run changes nothing; a run reaching its ceiling is stopped there and billed its seconds
// in the same usage and daily billing as titles.

let api: RunApi;
let baseUrl: string;
beforeAll(async () => {
  // Stretches of 2 seconds, so a short run records its seconds on the way too.
  api = await givenRunApi({ meterStretchSeconds: 2 });
  baseUrl = api.baseUrl;
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

/** Reads an NDJSON answer line by line as it arrives, each with the time it came. */
async function follow(
  path: string,
): Promise<{ lines: AsyncGenerator<{ line: Record<string, unknown>; at: number }> }> {
  const answer = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${api.key}` } });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  const reader = answer.body!.getReader();
  const decoder = new TextDecoder();
  async function* lines() {
    let pending = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      const at = Date.now();
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        yield { line: JSON.parse(pending.slice(0, newline)) as Record<string, unknown>, at };
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    }
  }
  return { lines: lines() };
}

describe('following the output', () => {
  it('receives each line as it is printed, then the end line with the status', async () => {
    const run = await api.place({
      command: 'echo one; sleep 2; echo two >&2; sleep 2; echo three; exit 5',
      ceiling_cents: 1,
    });
    const { lines } = await follow(`/api/runs/${run.id}/output?follow=true`);
    const seen: { line: Record<string, unknown>; at: number }[] = [];
    for await (const item of lines) seen.push(item);
    expect(seen.map(({ line }) => line.text ?? line.status)).toEqual(['one\n', 'two\n', 'three\n', 'failed']);
    expect(seen.map(({ line }) => line.stream ?? null)).toEqual(['stdout', 'stderr', 'stdout', null]);
    expect(seen.map(({ line }) => line.seq ?? null)).toEqual([1, 1, 2, null]);
    // Live: each line came about when it was printed, two seconds apart, not all at the end.
    const gaps = seen.slice(1, 3).map((item, i) => item.at - seen[i]!.at);
    for (const gap of gaps) expect(gap).toBeGreaterThan(1000);
    expect(seen[3]!.line).toMatchObject({
      status: 'failed',
      exit_code: 5,
      run: { id: run.id, status: 'failed' },
    });
  });

  it('gives a follower that connects after the end everything, then the end line', async () => {
    const run = await api.place({ command: 'echo done', ceiling_cents: 1 });
    await api.ended(run.id);
    const { lines } = await follow(`/api/runs/${run.id}/output?follow=true`);
    const seen: Record<string, unknown>[] = [];
    for await (const { line } of lines) seen.push(line);
    expect(seen).toEqual([
      { seq: 1, stream: 'stdout', text: 'done\n' },
      expect.objectContaining({ status: 'succeeded', exit_code: 0 }),
    ]);
  });

  it('refuses `after_seq` without `stream`: sequence numbers count per stream', async () => {
    const run = await api.place({ command: 'true', ceiling_cents: 1 });
    const answer = await api.call('GET', `/api/runs/${run.id}/output?after_seq=2`);
    expect(answer.statusCode).toBe(422);
    expect(answer.json().error.param).toBe('after_seq');
  });
});

describe('stop', () => {
  it('stops a running run: its command tree is killed, the answer is the run as stopped', async () => {
    const run = await api.place({ command: 'sleep 300 & sleep 300; echo never', ceiling_cents: 10 });
    await eventually(
      async () =>
        (await api.call('GET', `/api/runs/${run.id}`)).json().data.status === 'running' ? true : undefined,
      30_000,
      'the run to be running',
    );
    const stopped = await api.call('POST', `/api/runs/${run.id}/stop`);
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json().data).toMatchObject({
      id: run.id,
      status: 'stopped',
      exit_code: null,
      stopped_by: { kind: 'key', key_id: api.keyId },
    });
    expect((await api.call('GET', `/api/runs/${run.id}`)).json().data.status).toBe('stopped');
    const lines = ndjson((await api.call('GET', `/api/runs/${run.id}/output`)).body);
    expect(lines).toEqual([expect.objectContaining({ status: 'stopped' })]);
  });

  it('answers 200 with an ended run as it was, changing nothing', async () => {
    const run = await api.place({ command: 'exit 7', ceiling_cents: 1 });
    const ended = await api.ended(run.id);
    const again = await api.call('POST', `/api/runs/${run.name}/stop`);
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(ended);
  });
});

describe('the spend ceiling', () => {
  // An org of its own, so its billing holds this run's seconds only.
  let org: { orgId: string; key: string };
  beforeAll(async () => {
    org = await api.newOrg('Ceiling');
  });

  it('stops a run when its cost reaches the ceiling, and bills the seconds metered', async () => {
    // 0.01 cents at 0.002 cents a second (small): five seconds.
    const run = await api.place({ command: 'echo start; sleep 120', ceiling_cents: 0.01 }, org.key);
    const ended = await eventually(
      async () => {
        const now = (await api.call('GET', `/api/runs/${run.id}`, { bearer: org.key })).json().data;
        return now.status === 'placed' || now.status === 'running' ? undefined : now;
      },
      30_000,
      'the run to end',
    );
    expect(ended).toMatchObject({
      status: 'ceiling_reached',
      billed_seconds: 5,
      cost_cents: 0.01,
      exit_code: null,
    });
    const startedMs = Date.parse(String(ended.started_at));
    const endedMs = Date.parse(String(ended.ended_at));
    expect(endedMs - startedMs).toBeGreaterThanOrEqual(5000);
    expect(endedMs - startedMs).toBeLessThan(15_000);
    // The seconds reach the daily billing as titles' tokens do: under the size's meter.
    const row = await eventually(
      async () => {
        const summary = (await api.call('GET', '/api/billing/summary', { bearer: org.key })).json().data;
        const meter = summary.charges.find((c: { model: string }) => c.model === 'run:small');
        return meter?.seconds === 5 ? meter : undefined;
      },
      15_000,
      'the run seconds in the billing summary',
    );
    expect(row).toMatchObject({ model: 'run:small', seconds: 5, input_tokens: 0 });
  });

  it('posts the day charge of the seconds: 0.01 cents rounded up to a whole cent, once', async () => {
    const post = () =>
      postCharges({ pool: api.platform.pool, producer: api.platform.producer }, { orgIds: [org.orgId] });
    expect((await post()).posted.map((charge) => [charge.model, charge.cents])).toEqual([['run:small', 1]]);
    expect((await post()).posted).toEqual([]);
    const summary = (await api.call('GET', '/api/billing/summary', { bearer: org.key })).json().data;
    expect(summary.charges.find((c: { model: string }) => c.model === 'run:small')).toMatchObject({
      cents: 1,
    });
  });
});
