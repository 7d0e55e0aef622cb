import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../harness/platform.ts';
import { base64, givenRunApi, ndjson, prepareTimeoutMs, type RunApi } from './given.ts';

// Runs through HTTP on real sandboxes (issue 16, item 1): a command with files and environment,
// its output kept apart by stream with sequence numbers, its exit code and status, its result.

let api: RunApi;
beforeAll(async () => {
  api = await givenRunApi();
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

describe('a run', () => {
  it('prints to both streams and exits 3: failed, exit code 3, the streams apart and numbered', async () => {
    const placed = await api.place({
      command: 'cat greeting.txt; echo "to err $WHO" >&2; sleep 0.5; echo second; exit 3',
      files: [{ path: 'greeting.txt', contents_base64: base64('hello from a file\n') }],
      env: { WHO: 'the caller' },
      ceiling_cents: 1,
      name: 'both-streams',
    });
    expect(placed).toMatchObject({
      name: 'both-streams',
      status: 'placed',
      size: 'small',
      env_names: ['WHO'],
      files: [{ path: 'greeting.txt', size_bytes: 18 }],
      ceiling_cents: 1,
      exit_code: null,
      network: { egress: 'open', allow: [], deny: [] },
      template: null,
    });
    expect(placed.id).toMatch(/^run_[0-9a-f]{24}$/);
    // The answer is what the read model holds: a GET by id or name right after shows it.
    expect((await api.call('GET', `/api/runs/${placed.id}`)).json().data.id).toBe(placed.id);
    expect((await api.call('GET', '/api/runs/both-streams')).json().data.id).toBe(placed.id);

    const ended = await api.ended(placed.id);
    expect(ended).toMatchObject({ status: 'failed', exit_code: 3, failure: null, has_result: false });
    expect(ended.billed_seconds).toBeGreaterThanOrEqual(1);
    expect(ended.started_at).not.toBeNull();
    expect(ended.ended_at).not.toBeNull();

    const lines = ndjson((await api.call('GET', `/api/runs/${placed.id}/output`)).body);
    const end = lines.pop();
    expect(end).toMatchObject({ status: 'failed', exit_code: 3, run: { id: placed.id } });
    const text = (stream: string) =>
      lines
        .filter((line) => line.stream === stream)
        .map((line) => line.text)
        .join('');
    expect(text('stdout')).toBe('hello from a file\nsecond\n');
    expect(text('stderr')).toBe('to err the caller\n');
    for (const stream of ['stdout', 'stderr']) {
      const seqs = lines.filter((line) => line.stream === stream).map((line) => line.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    }
    // The sleep splits stdout into two chunks, numbered 1 and 2 on their stream.
    expect(lines.filter((line) => line.stream === 'stdout').length).toBe(2);
    // One stream, from a sequence number on.
    const after = ndjson(
      (await api.call('GET', `/api/runs/${placed.id}/output?stream=stdout&after_seq=1`)).body,
    );
    expect(after.slice(0, -1)).toEqual([{ seq: 2, stream: 'stdout', text: 'second\n' }]);
    // Its sandbox goes once its end is recorded.
    await eventually(
      () =>
        api.runtime.status(placed.id).then(
          () => undefined,
          () => true,
        ),
      10_000,
      "the run's sandbox to be destroyed",
    );
  });

  it('exits 0 having written a result: succeeded, the result readable', async () => {
    const placed = await api.place({
      command:
        'test -n "$ORRERY_RESULT_PATH" && printf \'{"metrics":{"loss":0.25},"ok":true}\' > "$ORRERY_RESULT_PATH"',
      ceiling_cents: 1,
    });
    expect(placed.name).toMatch(/^run-[0-9a-f]{6}$/);
    const ended = await api.ended(placed.id);
    expect(ended).toMatchObject({ status: 'succeeded', exit_code: 0, has_result: true });
    const result = await api.call('GET', `/api/runs/${placed.name}/result`);
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json()).toEqual({ data: { metrics: { loss: 0.25 }, ok: true } });
  });

  it('answers 404 `no_result` for a run that wrote none, and says why for one that wrote no object', async () => {
    const none = await api.place({ command: 'true', ceiling_cents: 1 });
    const array = await api.place({ command: 'echo "[1, 2]" > "$ORRERY_RESULT_PATH"', ceiling_cents: 1 });
    await api.ended(none.id);
    expect((await api.ended(array.id)).result_refused).toMatch(/not an object/);
    const noResult = await api.call('GET', `/api/runs/${none.id}/result`);
    expect(noResult.statusCode).toBe(404);
    expect(noResult.json().error.code).toBe('no_result');
    const refused = await api.call('GET', `/api/runs/${array.id}/result`);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error.message).toMatch(/not an object/);
  });

  it('lists runs newest first; `status=active` those holding hardware', async () => {
    const long = await api.place({ command: 'sleep 30', ceiling_cents: 1, name: 'long-one' });
    const all = (await api.call('GET', '/api/runs?limit=3')).json().data as { id: string }[];
    expect(all[0]?.id).toBe(long.id);
    expect(all).toHaveLength(3);
    const activeRuns = (await api.call('GET', '/api/runs?status=active')).json().data as { id: string }[];
    expect(activeRuns.map((run) => run.id)).toEqual([long.id]);
    const stopped = await api.call('POST', `/api/runs/${long.id}/stop`);
    expect(stopped.json().data.status).toBe('stopped');
    expect((await api.call('GET', '/api/runs?status=active')).json().data).toEqual([]);
  });

  it('answers 404 for a run of another org, and to a key of that org for ours', async () => {
    const other = await api.newOrg('Other runs');
    const ours = await api.place({ command: 'true', ceiling_cents: 1 });
    const answer = await api.call('GET', `/api/runs/${ours.id}`, { bearer: other.key });
    expect(answer.statusCode).toBe(404);
    expect(answer.json().error.code).toBe('not_found');
    await api.ended(ours.id);
    await eventually(async () => ((await api.runtime.list()).length === 0 ? true : undefined), 10_000);
  });
});
