import { randomBytes } from 'node:crypto';
import type { KeyValue, OtlpSpan, OtlpTraceRequest } from '../domain/tracing/otlp.ts';
import { request } from '../test/harness/otlp-fixtures.ts';

// Realistic LLM spans for the benchmarks: one agent turn is an agent span, two chat generations
// with GenAI messages, and a tool call, as an instrumented support bot would export them.

const str = (key: string, value: string): KeyValue => ({ key, value: { kind: 'string', value } });
const int = (key: string, value: number): KeyValue => ({ key, value: { kind: 'int', value: BigInt(value) } });
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const prompt =
  'You are a support assistant for an online shop. Summarise the customer conversation below and ' +
  'propose a reply that answers every question, in a friendly tone, in at most five sentences. ';
const conversation = [
  'Hi, I ordered a pair of boots last Tuesday (order A-1042) and the tracking page has not moved since Friday.',
  'Can you tell me whether it is lost, and if so whether you can send a replacement before the weekend?',
  'Also, the invoice shows two shipping fees; I think one of them is a mistake.',
].join(' ');

export function agentTurn(startMs: number): OtlpSpan[] {
  const traceId = hex(16);
  const root = hex(8);
  const ns = (ms: number) => BigInt(Math.round(ms * 1e6));
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
  const generation = (offset: number): OtlpSpan => ({
    ...base,
    spanId: hex(8),
    parentSpanId: root,
    name: 'chat gpt-4o-mini',
    kind: 3,
    startTimeUnixNano: ns(startMs + offset),
    endTimeUnixNano: ns(startMs + offset + 800),
    attributes: [
      str('gen_ai.operation.name', 'chat'),
      str('gen_ai.system', 'openai'),
      str('gen_ai.request.model', 'gpt-4o-mini'),
      str('gen_ai.response.model', 'gpt-4o-mini-2024-07-18'),
      int('gen_ai.usage.input_tokens', 812),
      int('gen_ai.usage.output_tokens', 96),
      str(
        'gen_ai.input.messages',
        JSON.stringify([
          { role: 'system', parts: [{ type: 'text', content: prompt }] },
          { role: 'user', parts: [{ type: 'text', content: `${conversation} (${hex(4)})` }] },
        ]),
      ),
      str(
        'gen_ai.output.messages',
        JSON.stringify([
          {
            role: 'assistant',
            parts: [
              {
                type: 'text',
                content: 'Sorry about the wait! Your boots are on their way; the second fee was refunded.',
              },
            ],
            finish_reason: 'stop',
          },
        ]),
      ),
      str('session.id', `session-${traceId.slice(0, 6)}`),
      str('user.id', 'user-42'),
    ],
  });
  return [
    {
      ...base,
      spanId: root,
      parentSpanId: '',
      name: 'invoke_agent support',
      kind: 1,
      startTimeUnixNano: ns(startMs),
      endTimeUnixNano: ns(startMs + 3000),
      attributes: [str('gen_ai.operation.name', 'invoke_agent'), str('gen_ai.agent.name', 'support')],
    },
    generation(10),
    {
      ...base,
      spanId: hex(8),
      parentSpanId: root,
      name: 'execute_tool lookup_order',
      kind: 1,
      startTimeUnixNano: ns(startMs + 900),
      endTimeUnixNano: ns(startMs + 950),
      attributes: [
        str('gen_ai.operation.name', 'execute_tool'),
        str('gen_ai.tool.name', 'lookup_order'),
        str('gen_ai.tool.call.arguments', '{"order_id":"A-1042"}'),
        str('gen_ai.tool.call.result', '{"status":"shipped","eta":"2026-11-25"}'),
      ],
    },
    generation(1000),
  ];
}

/** `count` spans of whole agent turns (the last turn cut short), starting now. */
export function llmSpans(count: number): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  while (spans.length < count) spans.push(...agentTurn(Date.now()));
  spans.length = count;
  return spans;
}

export const benchResource: KeyValue[] = [
  str('service.name', 'support-bot'),
  str('deployment.environment.name', 'bench'),
  str('telemetry.sdk.language', 'nodejs'),
];

/** The spans as one export of the support bot's service. */
export function llmRequest(spans: OtlpSpan[]): OtlpTraceRequest {
  const exported = request(spans);
  exported.resourceSpans[0]!.resource.attributes = benchResource;
  return exported;
}
