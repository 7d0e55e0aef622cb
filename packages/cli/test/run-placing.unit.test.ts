import { describe, expect, it } from 'vitest';
import { ApiClient, Unreachable } from '../src/api-client.ts';
import type { RunFlags } from '../src/arguments.ts';
import { placeRun } from '../src/commands/run.ts';
import { ApiRefused } from '../src/failures.ts';
import { Output } from '../src/output.ts';
import { createPalette } from '../src/palette.ts';

// Placing a run with one Idempotency-Key per invocation (issue 50, item 5): an attempt whose
// answer was lost, or that the API could not record (503 `unavailable`), is sent again with the
// same key, so the API answers the run the first attempt placed instead of placing a second;
// any other refusal is the answer.

const flags: RunFlags = {
  command: ['python3', '-c', 'print("a b")'],
  ceilingCents: 1,
  size: undefined,
  env: [],
  files: [],
  name: undefined,
  network: undefined,
  template: undefined,
  detach: false,
  checks: [],
};

const run = { id: 'run_0123456789abcdef01234567', name: 'run-abcdef', status: 'placed' };
const placed = () => new Response(JSON.stringify({ data: run }), { status: 201 });
const refused = (status: number, code: string) =>
  new Response(JSON.stringify({ error: { code, message: `${code}.` } }), { status });
/** What fetch throws when the connection is cut before the answer came. */
const lost = () => {
  throw new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } });
};

/** Answers each request with the next answer; records each request's key and body. */
function placing(answers: (() => Response)[]) {
  const sent: { key: string | undefined; body: unknown }[] = [];
  const fetch = (async (_url: string | URL, init?: RequestInit) => {
    const headers = init?.headers as Record<string, string>;
    sent.push({ key: headers['idempotency-key'], body: JSON.parse(String(init?.body)) });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next();
  }) as typeof globalThis.fetch;
  const said: string[] = [];
  const waits: number[] = [];
  const context = {
    env: {},
    sleep: async (seconds: number) => {
      waits.push(seconds);
    },
    output: new Output(
      { stdout: { write: () => {} }, stderr: { write: (text: string) => said.push(text) } },
      createPalette(0),
    ),
  };
  const api = new ApiClient({ baseUrl: 'http://api', key: 'k', userAgent: 't', fetch });
  return { place: () => placeRun(api, flags, context), sent, said, waits };
}

describe('placing a run', () => {
  it('sends the command as the vector it was given, with an Idempotency-Key', async () => {
    const { place, sent } = placing([placed]);
    expect((await place()).run.id).toBe(run.id);
    expect(sent).toEqual([
      {
        key: expect.stringMatching(/^[0-9a-f-]{36}$/),
        body: expect.objectContaining({ command: ['python3', '-c', 'print("a b")'] }),
      },
    ]);
  });

  it('asks again with the same key after a lost answer and a 503 `unavailable`, saying so on stderr', async () => {
    const { place, sent, said, waits } = placing([lost, () => refused(503, 'unavailable'), placed]);
    expect((await place()).run.id).toBe(run.id);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((attempt) => attempt.key)).size).toBe(1);
    expect(sent[2]!.body).toEqual(sent[0]!.body);
    expect(waits).toEqual([1, 2]);
    expect(said.join('')).toMatch(/answer was lost \(UND_ERR_SOCKET\): asking again in 1 s/);
    expect(said.join('')).toMatch(/could not record the run yet: asking again in 2 s/);
  });

  it('gives up after four attempts, the last failure its answer', async () => {
    const { place, sent, waits } = placing([lost, lost, lost, lost]);
    await expect(place()).rejects.toBeInstanceOf(Unreachable);
    expect(sent).toHaveLength(4);
    expect(waits).toEqual([1, 2, 4]);
  });

  it.each([
    [422, 'invalid_request'],
    [402, 'insufficient_credit'],
    [503, 'no_capacity'],
  ])('takes a %s `%s` as the answer, asking nothing again', async (status, code) => {
    const { place, sent } = placing([() => refused(status, code), placed]);
    await expect(place()).rejects.toMatchObject(new ApiRefused({ status, code, message: `${code}.` }));
    expect(sent).toHaveLength(1);
  });

  it('gives each invocation a key of its own', async () => {
    const first = placing([placed]);
    const second = placing([placed]);
    await first.place();
    await second.place();
    expect(first.sent[0]!.key).not.toBe(second.sent[0]!.key);
  });
});
