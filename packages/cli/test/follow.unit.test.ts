import { describe, expect, it } from 'vitest';
import { ApiClient } from '../src/api-client.ts';
import { ApiRefused } from '../src/failures.ts';
import { type Chunk, followOutput } from '../src/follow.ts';

// Following a run's output when the connection is lost on the way: it is opened again, and the
// chunks already handed over are skipped by their sequence numbers, stream by stream.

const line = (value: object) => `${JSON.stringify(value)}\n`;
const end = line({ status: 'failed', exit_code: 3, run: { id: 'run_1', name: 'train', status: 'failed' } });

/** Answers each request with the next body; a body ending in `null` breaks off mid-answer. */
function answering(bodies: (string | null)[][], status = 200) {
  const requests: string[] = [];
  const fetch = (async (url: string | URL) => {
    requests.push(String(url));
    const parts = bodies.shift() ?? [];
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts)
          if (part === null) controller.error(new TypeError('terminated'));
          else controller.enqueue(encoder.encode(part));
        if (!parts.includes(null)) controller.close();
      },
    });
    return new Response(body, { status });
  }) as typeof globalThis.fetch;
  return { api: new ApiClient({ baseUrl: 'http://api', key: 'k', userAgent: 't', fetch }), requests };
}

const follow = (api: ApiClient, follow = true) => {
  const chunks: Chunk[] = [];
  const done = followOutput({
    api,
    run: 'train',
    follow,
    signal: new AbortController().signal,
    sleep: async () => {},
    onChunk: (chunk) => chunks.push(chunk),
  });
  return { chunks, done };
};

describe('followOutput', () => {
  it('hands over each chunk once, in order per stream, across a lost connection', async () => {
    const { api, requests } = answering([
      [
        line({ seq: 1, stream: 'stdout', text: 'a' }),
        line({ seq: 1, stream: 'stderr', text: 'x' }).slice(0, 9),
        null,
      ],
      [
        line({ seq: 1, stream: 'stdout', text: 'a' }),
        line({ seq: 1, stream: 'stderr', text: 'x' }),
        line({ seq: 2, stream: 'stdout', text: 'b' }),
      ],
      [
        line({ seq: 1, stream: 'stdout', text: 'a' }),
        line({ seq: 1, stream: 'stderr', text: 'x' }),
        line({ seq: 2, stream: 'stdout', text: 'b' }),
        line({ seq: 3, stream: 'stdout', text: 'c' }),
        end,
      ],
    ]);
    const { chunks, done } = follow(api);
    const followed = await done;
    expect(chunks.map((chunk) => `${chunk.stream}:${chunk.seq}:${chunk.text}`)).toEqual([
      'stdout:1:a',
      'stderr:1:x',
      'stdout:2:b',
      'stdout:3:c',
    ]);
    expect(followed).toMatchObject({
      kind: 'ended',
      end: { status: 'failed', exit_code: 3 },
      line: end.trim(),
    });
    // Broken off, then ended without the end line: opened three times.
    expect(requests).toEqual(Array(3).fill('http://api/api/runs/train/output?follow=true'));
  });

  it('not followed, an answer without the end line is a run not ended yet', async () => {
    const { api } = answering([[line({ seq: 1, stream: 'stdout', text: 'a' })]]);
    expect(await follow(api, false).done).toEqual({ kind: 'not_ended' });
  });

  it('a refusal is the answer, not a lost connection', async () => {
    const { api, requests } = answering(
      [[JSON.stringify({ error: { code: 'not_found', message: 'No run with this name or id in the org' } })]],
      404,
    );
    await expect(follow(api).done).rejects.toBeInstanceOf(ApiRefused);
    expect(requests).toHaveLength(1);
  });

  it('gives up after ten lost connections in a row, saying how to follow the run', async () => {
    const { api, requests } = answering(Array.from({ length: 20 }, () => [null]));
    await expect(follow(api).done).rejects.toThrow('follow it with `orrery logs -f train`');
    expect(requests).toHaveLength(11);
  });
});
