import { randomBytes } from 'node:crypto';
import type { KeyValue, OtlpSpan } from '../../domain/tracing/otlp.ts';
import { span as fixtureSpan } from './otlp-fixtures.ts';

// One large agent trace (001 allows 10,000 spans a trace; issue 50, item 3), as the trace page's
// end-to-end test and bench/trace-page.ts send it: a support agent's root and, under it, turns of
// ten spans nested up to five deep: the turn's agent; a chat; a tool call running a retrieval and
// a sub-agent, whose chat and tool call (with a chat of its own) sit under it; a guardrail check;
// the answer's chat. In one turn, 80 % of the way through, the deepest span is a tool call of a
// name no other span has, to be searched for; a few tool calls fail. Siblings start in the order
// they are made, so the spans are in the order the trace page shows them (depth first).

export interface LargeTrace {
  traceId: string;
  spans: OtlpSpan[];
  rootName: string;
  /** The one span named `execute_tool <deepTool>`, five levels under the root. */
  deep: { spanId: string; name: string; depth: number };
  /** The span the tree shows last. */
  last: { spanId: string; name: string };
}

const text = (key: string, value: string): KeyValue => ({ key, value: { kind: 'string', value } });
const int = (key: string, value: number): KeyValue => ({ key, value: { kind: 'int', value: BigInt(value) } });
const turnMs = 400;

/** `total` spans (at least 1) of one trace that ends a minute before `now`. */
export function largeAgentTrace(
  total: number,
  options: { now?: number; deepTool?: string } = {},
): LargeTrace {
  const traceId = randomBytes(16).toString('hex');
  const deepTool = options.deepTool ?? 'reconcile_ledger';
  const turns = Math.ceil((total - 1) / 10);
  const markedTurn = Math.floor(turns * 0.8);
  const start = (options.now ?? Date.now()) - 60_000 - turns * turnMs - 100;
  const ns = (ms: number) => BigInt(Math.round((start + ms) * 1000)) * 1000n;
  const spans: OtlpSpan[] = [];
  let deep: LargeTrace['deep'] | undefined;
  const add = (
    parent: string,
    name: string,
    from: number,
    to: number,
    attributes: KeyValue[],
    failed = false,
  ): string => {
    const spanId = randomBytes(8).toString('hex');
    spans.push(
      fixtureSpan({
        traceId,
        spanId,
        parentSpanId: parent,
        traceState: '',
        name,
        kind: 1,
        startTimeUnixNano: ns(from),
        endTimeUnixNano: ns(to),
        attributes,
        droppedAttributesCount: 0,
        events: [],
        droppedEventsCount: 0,
        links: [],
        droppedLinksCount: 0,
        status: failed ? { code: 2, message: 'upstream timed out' } : { code: 0, message: '' },
      }),
    );
    return spanId;
  };
  const agent = (name: string) => [
    text('gen_ai.operation.name', 'invoke_agent'),
    text('gen_ai.agent.name', name),
  ];
  const chat = (model: string, turn: number) => [
    text('gen_ai.operation.name', 'chat'),
    text('gen_ai.request.model', model),
    int('gen_ai.usage.input_tokens', 400 + (turn % 7) * 110),
    int('gen_ai.usage.output_tokens', 30 + (turn % 5) * 40),
  ];
  const tool = (name: string) => [
    text('gen_ai.operation.name', 'execute_tool'),
    text('gen_ai.tool.name', name),
  ];

  const rootName = 'invoke_agent support';
  const root = add('', rootName, 0, turns * turnMs + 50, [
    ...agent('support'),
    text('session.id', `large-${traceId.slice(0, 8)}`),
  ]);
  for (let turn = 0; turn < turns && spans.length < total; turn += 1) {
    const t = turn * turnMs + 10;
    const planner = add(root, 'invoke_agent planner', t, t + 380, agent('planner'));
    add(planner, 'chat gpt-4o', t + 5, t + 80, chat('gpt-4o', turn));
    const search = add(planner, 'execute_tool search_docs', t + 85, t + 300, tool('search_docs'));
    add(search, 'retrieve documents', t + 90, t + 120, [text('openinference.span.kind', 'RETRIEVER')]);
    const summarizer = add(search, 'invoke_agent summarizer', t + 125, t + 295, agent('summarizer'));
    add(summarizer, 'chat gpt-4o-mini', t + 130, t + 190, chat('gpt-4o-mini', turn));
    const fetch = add(
      summarizer,
      'execute_tool fetch_page',
      t + 195,
      t + 290,
      tool('fetch_page'),
      turn % 37 === 5,
    );
    if (turn === markedTurn) {
      const name = `execute_tool ${deepTool}`;
      deep = { spanId: add(fetch, name, t + 200, t + 285, tool(deepTool)), name, depth: 5 };
    } else add(fetch, 'chat gpt-4o-mini', t + 200, t + 285, chat('gpt-4o-mini', turn));
    add(planner, 'guardrail check', t + 305, t + 310, []);
    add(planner, 'chat gpt-4o', t + 312, t + 378, chat('gpt-4o', turn));
  }
  spans.length = Math.min(spans.length, total);
  if (!deep || !spans.some((span) => span.spanId === deep?.spanId))
    throw new Error(`a trace of ${total} spans is too small for its deep span`);
  const last = spans.at(-1)!;
  return { traceId, spans, rootName, deep, last: { spanId: last.spanId, name: last.name } };
}
