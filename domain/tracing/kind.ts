// The span's kind, from the "Kind" table of 001 (Attributes read). The table's attributes are
// tried in the order its rows introduce them; the first one the span has decides the kind, even
// when its value maps to nothing (then the kind is `span`).

import { readString } from './attributes.ts';
import type { KeyValue } from './otlp.ts';
import type { SpanKind } from './span.ts';

type ValueMatch = { equals: string } | { endsWith: string } | { any: true };

interface KindRule {
  attribute: string;
  values: ReadonlyArray<ValueMatch & { kind: SpanKind }>;
}

/** The "Kind" table, one rule per attribute, its values checked in order. */
export const kindTable: readonly KindRule[] = [
  {
    attribute: 'openinference.span.kind',
    values: [
      { equals: 'LLM', kind: 'generation' },
      { equals: 'EMBEDDING', kind: 'generation' },
      { equals: 'TOOL', kind: 'tool' },
      { equals: 'AGENT', kind: 'agent' },
      { equals: 'CHAIN', kind: 'agent' },
      { equals: 'RETRIEVER', kind: 'retrieval' },
      { equals: 'RERANKER', kind: 'retrieval' },
    ],
  },
  {
    attribute: 'gen_ai.operation.name',
    values: [
      { equals: 'chat', kind: 'generation' },
      { equals: 'text_completion', kind: 'generation' },
      { equals: 'generate_content', kind: 'generation' },
      { equals: 'embeddings', kind: 'generation' },
      { equals: 'execute_tool', kind: 'tool' },
      { equals: 'invoke_agent', kind: 'agent' },
      { equals: 'create_agent', kind: 'agent' },
    ],
  },
  {
    attribute: 'ai.operationId',
    values: [
      { endsWith: '.doGenerate', kind: 'generation' },
      { endsWith: '.doStream', kind: 'generation' },
      { endsWith: '.doEmbed', kind: 'generation' },
      { equals: 'ai.toolCall', kind: 'tool' },
      { any: true, kind: 'agent' },
    ],
  },
  {
    attribute: 'llm.request.type',
    values: [
      { equals: 'chat', kind: 'generation' },
      { equals: 'completion', kind: 'generation' },
      { equals: 'embedding', kind: 'generation' },
    ],
  },
  {
    attribute: 'traceloop.span.kind',
    values: [
      { equals: 'tool', kind: 'tool' },
      { equals: 'agent', kind: 'agent' },
      { equals: 'workflow', kind: 'agent' },
    ],
  },
];

/** The first rule whose attribute the span has (as a non-empty string) decides. */
export function readKind(attributes: readonly KeyValue[]): SpanKind {
  for (const rule of kindTable) {
    const value = readString(attributes, rule.attribute);
    if (value !== undefined) return rule.values.find((match) => matches(match, value))?.kind ?? 'span';
  }
  return 'span';
}

function matches(match: ValueMatch, value: string): boolean {
  if ('equals' in match) return value === match.equals;
  if ('endsWith' in match) return value.endsWith(match.endsWith);
  return match.any;
}
