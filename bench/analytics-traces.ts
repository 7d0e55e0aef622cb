import { randomBytes, randomInt } from 'node:crypto';
import type { KeyValue, OtlpSpan } from '../domain/tracing/otlp.ts';

// The traces bench/analytics.ts loads: a support agent's turns of 10 spans each (the agent, a
// retrieval, five chat generations of one model, two tool calls, a guardrail check), in one of
// 300 sessions, with one of 5 models, starting anywhere in the 6 days before the load.

export const models = ['gpt-4o-mini', 'gpt-4o', 'claude-sonnet-4', 'gemini-2.5-flash', 'llama-3.3-70b'];
export const tools = [
  'lookup_order',
  'refund_payment',
  'search_catalog',
  'track_parcel',
  'update_address',
  'escalate_ticket',
];
export const sessions = 300;
export const spansPerTrace = 10;
const spreadMs = 6 * 24 * 3600 * 1000;

const str = (key: string, value: string): KeyValue => ({ key, value: { kind: 'string', value } });
const int = (key: string, value: number): KeyValue => ({ key, value: { kind: 'int', value: BigInt(value) } });
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const pick = <T>(items: readonly T[]) => items[randomInt(items.length)]!;

const question = 'Where is my order A-1042? The tracking page has not moved since Friday.';
const answer = 'Your parcel left the depot this morning and arrives tomorrow; sorry for the wait.';

/** One trace of `spansPerTrace` spans (fewer when `count` is less), starting before `now`. */
export function supportTrace(now: number, count = spansPerTrace): OtlpSpan[] {
  const traceId = hex(16);
  const rootId = hex(8);
  const start = now - randomInt(60_000, spreadMs);
  const model = pick(models);
  const [firstTool, secondTool] = [pick(tools), pick(tools)];
  const ns = (ms: number) => BigInt(start + ms) * 1_000_000n + BigInt(randomInt(1_000_000));
  const base = {
    traceId,
    traceState: '',
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    status: { code: 0 as const, message: '' },
  };
  const child = (name: string, at: number, durationMs: number, attributes: KeyValue[]): OtlpSpan => ({
    ...base,
    spanId: hex(8),
    parentSpanId: rootId,
    name,
    kind: 1,
    startTimeUnixNano: ns(at),
    endTimeUnixNano: ns(at + durationMs),
    attributes,
  });
  const generation = (at: number) =>
    child(`chat ${model}`, at, randomInt(300, 2500), [
      str('gen_ai.operation.name', 'chat'),
      str('gen_ai.request.model', model),
      int('gen_ai.usage.input_tokens', randomInt(200, 2000)),
      int('gen_ai.usage.output_tokens', randomInt(20, 400)),
      str(
        'gen_ai.input.messages',
        JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
      ),
      str(
        'gen_ai.output.messages',
        JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' },
        ]),
      ),
    ]);
  const tool = (name: string, at: number): OtlpSpan => ({
    ...child(`execute_tool ${name}`, at, randomInt(20, 400), [
      str('gen_ai.operation.name', 'execute_tool'),
      str('gen_ai.tool.name', name),
      str('gen_ai.tool.call.arguments', '{"order_id":"A-1042"}'),
    ]),
    status: randomInt(100) < 3 ? { code: 2, message: 'upstream timed out' } : base.status,
  });
  const spans: OtlpSpan[] = [
    {
      ...base,
      spanId: rootId,
      parentSpanId: '',
      name: 'invoke_agent support',
      kind: 1,
      startTimeUnixNano: ns(0),
      endTimeUnixNano: ns(9000),
      attributes: [
        str('gen_ai.operation.name', 'invoke_agent'),
        str('session.id', `session-${randomInt(sessions)}`),
        str('user.id', `user-${randomInt(5000)}`),
      ],
    },
    child('retrieve knowledge', 20, 150, [str('openinference.span.kind', 'RETRIEVER')]),
    generation(200),
    tool(firstTool, 1800),
    generation(2300),
    tool(secondTool, 4000),
    generation(4500),
    child('guardrail check', 6200, 40, []),
    generation(6300),
    generation(7800),
  ];
  return spans.slice(0, count);
}

/** `total` spans of whole traces (the last one cut short if `total` is not a multiple of 10). */
export function* supportSpans(total: number, now: number): Generator<OtlpSpan> {
  for (let sent = 0; sent < total; sent += spansPerTrace)
    yield* supportTrace(now, Math.min(spansPerTrace, total - sent));
}

export const benchResource: KeyValue[] = [
  str('service.name', 'support-bot'),
  str('deployment.environment.name', 'bench'),
  str('telemetry.sdk.language', 'nodejs'),
];
