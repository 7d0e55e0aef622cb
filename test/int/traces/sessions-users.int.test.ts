import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceItem, traceModels } from '../../../api/queries/answers.ts';
import type { PublishedSpan } from '../../../domain/tracing/events.ts';
import { summarizeTrace } from '../../../domain/tracing/trace-summary.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import {
  agentTrace,
  dayAt,
  get,
  nanos,
  newTraceId,
  type OrgWithKey,
  orgWithKey,
  publish,
  span,
  spansReceived,
  untilTraceCount,
} from './fixtures.ts';

// GET /api/sessions/:sessionId and /api/users/:userId against the real stack (issue 50, item 2):
// span events published on orrery.spans.v1, projected by the consumers, read through the API. A
// session is its traces in the order they started, each a turn with its messages; a user, its
// sessions and newest traces; each trace counted where its own trace-level values put it (001).

const ms = 1_000_000n;

interface Sent {
  traceId: string;
  spans: PublishedSpan[];
}

interface TurnSideBody {
  span_id: string;
  source: 'generation' | 'root';
  content: unknown;
  truncated: boolean;
}

interface SessionBody {
  data: {
    session_id: string;
    first_time: string;
    last_time: string;
    trace_count: number;
    error_count: number;
    input_tokens: number;
    output_tokens: number;
    total_cost_usd: number | null;
    user_ids: string[];
    traces: ({ trace_id: string; input: TurnSideBody | null; output: TurnSideBody | null } & Record<
      string,
      unknown
    >)[];
  };
  next_cursor: string | null;
}

interface UserBody {
  data: {
    user_id: string;
    first_seen: string;
    last_seen: string;
    trace_count: number;
    session_count: number;
    error_count: number;
    input_tokens: number;
    output_tokens: number;
    total_cost_usd: number | null;
    sessions: {
      session_id: string;
      trace_count: number;
      first_time: string;
      last_time: string;
      total_cost_usd: number | null;
      [field: string]: unknown;
    }[];
    latest_traces: { trace_id: string; [field: string]: unknown }[];
  };
  next_cursor: string | null;
}

const messages = (...turns: [role: string, text: string][]) =>
  JSON.stringify({
    messages: turns.map(([role, text]) => ({ role, parts: [{ type: 'text', content: text }] })),
  });

let platform: TestPlatform;
let org: OrgWithKey;
let stranger: OrgWithKey;

// Session conv-1 of ada, three turns an hour apart:
// 1. an agent's turn (the fixture): its first call's input (cut), its only stored output, a cost;
let agentTurn: ReturnType<typeof agentTrace>;
// 2. a chat of two calls: the person's words in the first's input, the answer in the second's
//    output; sent twice (a redelivered batch counts once);
const chatTurn: Sent & { first?: PublishedSpan; last?: PublishedSpan } = { traceId: '', spans: [] };
// 3. a root holding the request and answer, its one generation storing neither; its root in an
//    event after its child.
const rootTurn: Sent & { root?: PublishedSpan } = { traceId: '', spans: [] };
// Not conv-1's: its earliest span says conv-1, in an event of its own, but the root, which comes
// after, says conv-elsewhere (001): a fragment names conv-1, the trace does not.
const elsewhere: Sent = { traceId: '', spans: [] };
// ada's other session, without a cost; and a trace of hers without a session, the newest.
const otherSession: Sent = { traceId: '', spans: [] };
const noSession: Sent = { traceId: '', spans: [] };
// Another org's trace in a session and for a user of the same names.
const strangers: Sent = { traceId: '', spans: [] };

beforeAll(async () => {
  platform = await startTestPlatform();
  org = await orgWithKey(platform);
  stranger = await orgWithKey(platform);

  agentTurn = agentTrace(dayAt(2, 10), { sessionId: 'conv-1' });
  // The fixture's user is on its first call; ada is the root's, which comes first (001).
  agentTurn.root.userId = 'ada';

  chatTurn.traceId = newTraceId();
  const t1 = nanos(dayAt(2, 11));
  const chatRoot = span(chatTurn.traceId, {
    name: 'support chat',
    kind: 'agent',
    startTimeUnixNano: t1,
    endTimeUnixNano: t1 + 3000n * ms,
    sessionId: 'conv-1',
    userId: 'ada',
    input: JSON.stringify({ value: 'root input, not the turn' }),
    output: JSON.stringify({ value: 'root output, not the turn' }),
  });
  const call = (offsetMs: bigint, overrides: Partial<PublishedSpan>) =>
    span(chatTurn.traceId, {
      parentSpanId: chatRoot.spanId,
      name: 'chat claude-sonnet-4',
      kind: 'generation',
      model: 'claude-sonnet-4',
      startTimeUnixNano: t1 + offsetMs * ms,
      endTimeUnixNano: t1 + (offsetMs + 900n) * ms,
      ...overrides,
    });
  chatTurn.first = call(10n, {
    inputTokens: 200,
    outputTokens: 20,
    input: messages(['user', 'Can I change the address?']),
    output: messages(['assistant', 'Let me check the order.']),
  });
  chatTurn.last = call(1500n, {
    inputTokens: 300,
    outputTokens: 30,
    input: messages(
      ['user', 'Can I change the address?'],
      ['assistant', 'Let me check the order.'],
      ['user', 'It is A-1042.'],
    ),
    output: messages(['assistant', 'Done: it goes to the new address.']),
    outputTruncated: true,
  });
  chatTurn.spans = [chatRoot, chatTurn.first, chatTurn.last];

  rootTurn.traceId = newTraceId();
  const t2 = nanos(dayAt(2, 12));
  rootTurn.root = span(rootTurn.traceId, {
    name: 'thanks',
    startTimeUnixNano: t2,
    endTimeUnixNano: t2 + 500n * ms,
    sessionId: 'conv-1',
    userId: 'ada',
    input: JSON.stringify({ value: 'Thanks!' }),
    output: JSON.stringify({ value: 'You are welcome.' }),
    statusCode: 2,
  });
  const quiet = span(rootTurn.traceId, {
    parentSpanId: rootTurn.root.spanId,
    name: 'chat gpt-4o-mini',
    kind: 'generation',
    model: 'gpt-4o-mini',
    inputTokens: 5,
    outputTokens: 4,
    startTimeUnixNano: t2 + 10n * ms,
    endTimeUnixNano: t2 + 400n * ms,
  });
  rootTurn.spans = [rootTurn.root, quiet];

  elsewhere.traceId = newTraceId();
  const t3 = nanos(dayAt(2, 13));
  elsewhere.spans = [
    span(elsewhere.traceId, {
      name: 'handed over',
      startTimeUnixNano: t3 + 5n * ms,
      sessionId: 'conv-elsewhere',
      userId: 'ada',
    }),
    span(elsewhere.traceId, { parentSpanId: 'aaaaaaaaaaaaaaaa', startTimeUnixNano: t3, sessionId: 'conv-1' }),
  ];

  otherSession.traceId = newTraceId();
  otherSession.spans = [
    span(otherSession.traceId, {
      name: 'other chat',
      kind: 'generation',
      model: 'house-model',
      inputTokens: 7,
      outputTokens: 3,
      startTimeUnixNano: nanos(dayAt(1, 9)),
      endTimeUnixNano: nanos(dayAt(1, 9)) + 200n * ms,
      sessionId: 'conv-2',
      userId: 'ada',
      input: messages(['user', 'Hello again']),
    }),
  ];

  noSession.traceId = newTraceId();
  noSession.spans = [
    span(noSession.traceId, {
      name: 'no session',
      startTimeUnixNano: nanos(dayAt(1, 10)),
      endTimeUnixNano: nanos(dayAt(1, 10)) + 100n * ms,
      userId: 'ada',
    }),
  ];

  strangers.traceId = newTraceId();
  strangers.spans = [
    span(strangers.traceId, {
      name: 'their chat',
      startTimeUnixNano: nanos(dayAt(2, 10)),
      sessionId: 'conv-1',
      userId: 'ada',
      input: JSON.stringify({ value: 'Not yours' }),
    }),
  ];

  await publish(platform, [
    spansReceived(org.orgId, agentTurn.traceId, agentTurn.spans),
    spansReceived(org.orgId, chatTurn.traceId, chatTurn.spans),
    spansReceived(org.orgId, chatTurn.traceId, chatTurn.spans),
    spansReceived(org.orgId, rootTurn.traceId, [quiet]),
    spansReceived(org.orgId, rootTurn.traceId, [rootTurn.root]),
    spansReceived(org.orgId, elsewhere.traceId, [elsewhere.spans[1]!]),
    spansReceived(org.orgId, elsewhere.traceId, [elsewhere.spans[0]!]),
    spansReceived(org.orgId, otherSession.traceId, otherSession.spans),
    spansReceived(org.orgId, noSession.traceId, noSession.spans),
    spansReceived(stranger.orgId, strangers.traceId, strangers.spans),
  ]);
  await untilTraceCount(platform, org.key, 6);
  await untilTraceCount(platform, stranger.key, 1);
  // Two traces' roots are in events of their own: wait until they are in.
  for (const trace of [rootTurn, elsewhere])
    await eventually(
      async () => {
        const { body } = await get<{ data?: { span_count: number } }>(
          platform,
          org.key,
          `/api/traces/${trace.traceId}`,
        );
        return body.data?.span_count === 2 ? true : undefined;
      },
      30_000,
      `the two spans of ${trace.traceId}`,
    );
});
afterAll(() => platform.stop());

const session = (id: string, query = '', key = org.key) =>
  get<SessionBody>(platform, key, `/api/sessions/${encodeURIComponent(id)}${query}`);
const user = (id: string, query = '', key = org.key) =>
  get<UserBody>(platform, key, `/api/users/${encodeURIComponent(id)}${query}`);

/** The trace as the trace list answers it, from the spans as sent. */
const listed = (trace: Sent) => traceItem(summarizeTrace(trace.spans), traceModels(trace.spans));

describe('a session', () => {
  it('is its traces in the order they started, each as the trace list gives it, with its turn', async () => {
    const { status, body } = await session('conv-1');
    expect(status).toBe(200);
    expect(body.next_cursor).toBeNull();
    const [agent, chat, root] = body.data.traces;
    expect(body.data.traces.map((trace) => trace.trace_id)).toEqual([
      agentTurn.traceId,
      chatTurn.traceId,
      rootTurn.traceId,
    ]);
    const { input: _agentIn, output: _agentOut, ...agentItem } = agent!;
    expect(agentItem).toEqual(listed(agentTurn));
    const { input: _chatIn, output: _chatOut, ...chatItem } = chat!;
    expect(chatItem).toEqual(listed(chatTurn));
    const { input: _rootIn, output: _rootOut, ...rootItem } = root!;
    expect(rootItem).toEqual(listed(rootTurn));
  });

  it('adds up its traces: times, tokens over generations, cost, failed spans, and their users', async () => {
    const { body } = await session('conv-1');
    const traces = [agentTurn, chatTurn, rootTurn].map(listed);
    expect(body.data).toMatchObject({
      session_id: 'conv-1',
      first_time: dayAt(2, 10).toISOString(),
      last_time: new Date(dayAt(2, 12).getTime() + 500).toISOString(),
      trace_count: 3,
      input_tokens: traces.reduce((sum, trace) => sum + trace.input_tokens, 0),
      output_tokens: traces.reduce((sum, trace) => sum + trace.output_tokens, 0),
      // Only the agent's first call has a cost (the fixture's 4,500 micro-dollars).
      total_cost_usd: 0.0045,
      // The agent's failed tool call and the root turn's root.
      error_count: 2,
      user_ids: ['ada'],
    });
    expect(body.data.input_tokens).toBe(1500 + 500 + 5);
  });

  it("reads each turn's messages: the first generation's input, the last one's output, else the root's", async () => {
    const { body } = await session('conv-1');
    const [agent, chat, root] = body.data.traces;
    // The agent's second call stored no messages: both sides are its first call's.
    expect(agent!.input).toEqual({
      span_id: agentTurn.firstCall.spanId,
      source: 'generation',
      content: JSON.parse(agentTurn.firstCall.input!),
      truncated: true,
    });
    expect(agent!.output).toEqual({
      span_id: agentTurn.firstCall.spanId,
      source: 'generation',
      content: JSON.parse(agentTurn.firstCall.output!),
      truncated: false,
    });
    expect(chat!.input).toEqual({
      span_id: chatTurn.first!.spanId,
      source: 'generation',
      content: JSON.parse(chatTurn.first!.input!),
      truncated: false,
    });
    expect(chat!.output).toEqual({
      span_id: chatTurn.last!.spanId,
      source: 'generation',
      content: JSON.parse(chatTurn.last!.output!),
      truncated: true,
    });
    expect(root!.input).toEqual({
      span_id: rootTurn.root!.spanId,
      source: 'root',
      content: { value: 'Thanks!' },
      truncated: false,
    });
    expect(root!.output).toMatchObject({ source: 'root', content: { value: 'You are welcome.' } });
  });

  it('gives a turn without stored messages none, and a session without a cost none', async () => {
    const { body } = await session('conv-2');
    expect(body.data).toMatchObject({ trace_count: 1, total_cost_usd: null, input_tokens: 7 });
    expect(body.data.traces[0]).toMatchObject({
      input: { source: 'generation', content: { messages: [expect.objectContaining({ role: 'user' })] } },
      output: null,
      total_cost_usd: null,
    });
  });

  it('leaves out a trace whose own session is another, though one of its spans names this one', async () => {
    const conv = await session('conv-1');
    expect(conv.body.data.traces.map((trace) => trace.trace_id)).not.toContain(elsewhere.traceId);
    const other = await session('conv-elsewhere');
    expect(other.body.data.traces.map((trace) => trace.trace_id)).toEqual([elsewhere.traceId]);
  });

  it('pages its traces with the cursor, the totals the same on every page', async () => {
    const first = await session('conv-1', '?limit=2');
    expect(first.body.data.traces.map((trace) => trace.trace_id)).toEqual([
      agentTurn.traceId,
      chatTurn.traceId,
    ]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await session('conv-1', `?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.traces.map((trace) => trace.trace_id)).toEqual([rootTurn.traceId]);
    expect(second.body.next_cursor).toBeNull();
    const { traces: _first, ...firstTotals } = first.body.data;
    const { traces: _second, ...secondTotals } = second.body.data;
    expect(secondTotals).toEqual(firstTotals);
  });

  it('is 404 not_found when the org has no trace of it', async () => {
    for (const id of ['conv-nobody-had', 'conv-1 ']) {
      const { status, body } = await session(id);
      expect(status).toBe(404);
      expect(body).toEqual({ error: { code: 'not_found', message: expect.stringContaining('session') } });
    }
  });

  it.each([
    ['?limit=51', 'limit'],
    ['?limit=0', 'limit'],
    ['?cursor=not-ours', 'cursor'],
  ])('is 422 invalid_request for %s', async (query, param) => {
    const { status, body } = await get<{ error: { code: string; param: string } }>(
      platform,
      org.key,
      `/api/sessions/conv-1${query}`,
    );
    expect(status).toBe(422);
    expect(body.error).toMatchObject({ code: 'invalid_request', param });
  });
});

describe('a user', () => {
  it('adds up its traces, with its sessions newest first and its newest traces', async () => {
    const { status, body } = await user('ada');
    expect(status).toBe(200);
    const mine = [agentTurn, chatTurn, rootTurn, elsewhere, otherSession, noSession].map(listed);
    expect(body.data).toMatchObject({
      user_id: 'ada',
      first_seen: dayAt(2, 10).toISOString(),
      last_seen: new Date(dayAt(1, 10).getTime() + 100).toISOString(),
      trace_count: 6,
      session_count: 3,
      input_tokens: mine.reduce((sum, trace) => sum + trace.input_tokens, 0),
      output_tokens: mine.reduce((sum, trace) => sum + trace.output_tokens, 0),
      total_cost_usd: 0.0045,
      error_count: 2,
    });
    expect(body.data.sessions.map((row) => [row.session_id, row.trace_count, row.total_cost_usd])).toEqual([
      ['conv-2', 1, null],
      ['conv-elsewhere', 1, null],
      ['conv-1', 3, 0.0045],
    ]);
    expect(body.data.sessions[2]).toMatchObject({
      first_time: dayAt(2, 10).toISOString(),
      last_time: new Date(dayAt(2, 12).getTime() + 500).toISOString(),
    });
    expect(body.data.latest_traces.map((trace) => trace.trace_id)).toEqual([
      noSession.traceId,
      otherSession.traceId,
      elsewhere.traceId,
      rootTurn.traceId,
      chatTurn.traceId,
      agentTurn.traceId,
    ]);
    expect(body.data.latest_traces[0]).toEqual(listed(noSession));
    expect(body.next_cursor).toBeNull();
  });

  it('pages its sessions with the cursor, the totals and newest traces the same on every page', async () => {
    const pages: string[][] = [];
    const rests: Omit<UserBody['data'], 'sessions'>[] = [];
    let cursor: string | null = null;
    do {
      const { body }: { body: UserBody } = await user('ada', `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const { sessions, ...rest } = body.data;
      pages.push(sessions.map((row) => row.session_id));
      rests.push(rest);
      cursor = body.next_cursor;
    } while (cursor);
    expect(pages).toEqual([['conv-2', 'conv-elsewhere'], ['conv-1']]);
    expect(rests[1]).toEqual(rests[0]);
  });

  it('is 404 not_found when the org has no trace of it', async () => {
    const { status, body } = await user('nobody');
    expect(status).toBe(404);
    expect(body).toEqual({ error: { code: 'not_found', message: expect.stringContaining('user') } });
    expect((await user('ada', '?limit=101')).status).toBe(422);
  });
});

describe('another org', () => {
  it('sees only its own traces of a session and a user of the same names', async () => {
    const theirs = await session('conv-1', '', stranger.key);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.traces.map((trace) => trace.trace_id)).toEqual([strangers.traceId]);
    expect(theirs.body.data.traces[0]?.input).toMatchObject({
      source: 'root',
      content: { value: 'Not yours' },
    });
    const theirUser = await user('ada', '', stranger.key);
    expect(theirUser.body.data).toMatchObject({ trace_count: 1, session_count: 1 });
    // And ours saw none of theirs (above): three traces of conv-1, six of ada.
    expect((await session('conv-1')).body.data.trace_count).toBe(3);
  });

  it('is 404 for a session only another org has, and for a user nobody sent', async () => {
    expect((await session('conv-2', '', stranger.key)).status).toBe(404);
    expect((await user('nobody-here', '', stranger.key)).status).toBe(404);
  });

  it('needs a key with traces:write', async () => {
    const inference = await orgWithKey(platform, ['inference:invoke']);
    for (const url of ['/api/sessions/conv-1', '/api/users/ada']) {
      expect((await get(platform, undefined, url)).status).toBe(401);
      expect((await get(platform, inference.key, url)).body).toMatchObject({
        error: { code: 'insufficient_scope' },
      });
    }
  });
});
