// Spans as real instrumentations emit them, through the path a request takes: the OTLP body is
// decoded by the endpoint's own decoder, then each span is normalized. The body comes either from
// a recording of a Python instrumentation (test/fixtures/instrumentations/) or from a JS library
// run in the test, serialized by the OTLP exporters' own protobuf serializer.

import { readFileSync } from 'node:fs';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { decodeJson } from '../../../api/otlp/decode-json.ts';
import { decodeProtobuf } from '../../../api/otlp/decode-protobuf.ts';
import { findAttribute } from '../../../domain/tracing/attributes.ts';
import { normalizeSpan, prepareResource } from '../../../domain/tracing/normalize.ts';
import type { OtlpSpan, OtlpTraceRequest } from '../../../domain/tracing/otlp.ts';
import type { JsonValue, StoredSpan } from '../../../domain/tracing/span.ts';

const fixtures = new URL('../../fixtures/instrumentations/', import.meta.url);

/** A recorded OTLP/JSON body, by its file name without `.json`. */
export function recordedRequest(name: string): OtlpTraceRequest {
  return decodeJson(readFileSync(new URL(`${name}.json`, fixtures), 'utf8'));
}

/** Every span of a request, as sent. */
export function sentSpans(request: OtlpTraceRequest): OtlpSpan[] {
  return request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

/** Every span of a request, as stored. */
export function storedSpans(request: OtlpTraceRequest): StoredSpan[] {
  return request.resourceSpans.flatMap((resourceSpans) => {
    const resource = prepareResource(resourceSpans.resource.attributes);
    return resourceSpans.scopeSpans.flatMap(({ scope, spans }) =>
      spans.map((span) => normalizeSpan(span, resource, scope)),
    );
  });
}

/** A sent span's string attribute, to check what a fixture holds before reading it. */
export function sentString(span: OtlpSpan, key: string): string | undefined {
  const value = findAttribute(span.attributes, key);
  return value?.kind === 'string' ? value.value : undefined;
}

/** A stored span's JSON texts, parsed. */
export function parsed(text: string | null): JsonValue {
  return text === null ? null : (JSON.parse(text) as JsonValue);
}

/** A tracer whose spans are kept in memory, and the OTLP request they would be exported as. */
export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    tracer: provider.getTracer('ai'),
    /** The finished spans as the protobuf OTLP exporter sends them, decoded by the endpoint. */
    exported(): OtlpTraceRequest {
      const spans: ReadableSpan[] = exporter.getFinishedSpans();
      const body = ProtobufTraceSerializer.serializeRequest(spans);
      if (body === undefined) throw new Error('the serializer produced no body');
      return decodeProtobuf(Buffer.from(body));
    },
  };
}
