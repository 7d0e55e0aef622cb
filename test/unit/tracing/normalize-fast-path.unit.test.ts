import { describe, expect, it } from 'vitest';
import { normalizeRequest } from '../../../api/otlp/ingest.ts';
import { benchResource, llmSpans } from '../../../bench/llm-spans.ts';
import { limitSpan } from '../../../domain/tracing/truncation.ts';
import { span as fixtureSpan, request } from '../../harness/otlp-fixtures.ts';

// normalizeSpan skips limitSpan for spans within every limit (withinPerSpanLimits): it may do so
// only where limitSpan would have changed nothing.
describe('the normalization fast path', () => {
  const batch = request([
    ...llmSpans(64),
    fixtureSpan(),
    fixtureSpan({ name: 'n'.repeat(85) }),
    fixtureSpan({ attributes: [{ key: 'long', value: { kind: 'string', value: 'é'.repeat(4096) } }] }),
    fixtureSpan({
      events: Array.from({ length: 128 }, (_, index) => ({
        timeUnixNano: BigInt(index),
        name: `e${index}`,
        attributes: [],
        droppedAttributesCount: 0,
      })),
    }),
  ]);
  batch.resourceSpans[0]!.resource.attributes = benchResource;

  it.each(normalizeRequest(batch).map((span, index) => [index, span] as const))(
    'span %i is what limitSpan returns',
    (_, span) => {
      const { sizeBytes: _size, ...stored } = span;
      expect(limitSpan(stored)).toEqual(stored);
    },
  );

  it('still cuts what is over a limit', () => {
    const [over] = normalizeRequest(
      request([
        fixtureSpan({
          name: 'n'.repeat(300),
          attributes: [{ key: 'big', value: { kind: 'string', value: 'x'.repeat(9000) } }],
        }),
      ]),
    );
    expect(Buffer.byteLength(over!.name)).toBeLessThanOrEqual(256);
    expect(over!.name).toMatch(/…\[truncated \d+ bytes\]$/);
    expect(JSON.parse(over!.attributes).big).toMatch(/…\[truncated \d+ bytes\]$/);
  });
});
