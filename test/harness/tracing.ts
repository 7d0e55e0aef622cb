import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { createApiKey, createOrg, enableTracing } from '../../api/admin/commands.ts';
import type { Scope } from '../../domain/orgs/events.ts';
import type { OtlpSpan } from '../../domain/tracing/otlp.ts';
import {
  span as fixtureSpan,
  request as otlpRequest,
  responseType,
  statusType,
  toOtlpJson,
  toProtobuf,
} from './otlp-fixtures.ts';
import type { TestPlatform } from './platform.ts';

export const traceId = () => randomBytes(16).toString('hex');
export const spanId = () => randomBytes(8).toString('hex');

/** An org in the tracing beta with a key holding `traces:write` (or the scopes given). */
export async function tracingOrg(
  platform: TestPlatform,
  options: { tracing?: boolean; scopes?: Scope[] } = {},
): Promise<{ orgId: string; key: string }> {
  const org = await createOrg(platform.admin, 'Tracing Org');
  if (options.tracing ?? true) await enableTracing(platform.admin, org.orgId);
  const { key } = await createApiKey(platform.admin, org.orgId, options.scopes ?? ['traces:write']);
  return { orgId: org.orgId, key };
}

/** A small LLM span with fresh ids; override anything. */
export function llmSpan(overrides: Partial<OtlpSpan> = {}): OtlpSpan {
  return fixtureSpan({
    traceId: traceId(),
    spanId: spanId(),
    parentSpanId: '',
    traceState: '',
    startTimeUnixNano: BigInt(Date.now()) * 1_000_000n,
    endTimeUnixNano: BigInt(Date.now() + 1200) * 1_000_000n,
    attributes: [
      { key: 'gen_ai.operation.name', value: { kind: 'string', value: 'chat' } },
      { key: 'gen_ai.request.model', value: { kind: 'string', value: 'gpt-4o' } },
      { key: 'gen_ai.usage.input_tokens', value: { kind: 'int', value: 42n } },
      { key: 'gen_ai.usage.output_tokens', value: { kind: 'int', value: 7n } },
    ],
    events: [],
    links: [],
    status: { code: 0, message: '' },
    ...overrides,
  });
}

export interface Export {
  spans: OtlpSpan[];
  format?: 'protobuf' | 'json';
  gzip?: boolean;
  key?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** Sends an export to the endpoint and decodes the answer in its encoding. */
export async function exportSpans(api: FastifyInstance, options: Export) {
  const format = options.format ?? 'protobuf';
  const request = otlpRequest(options.spans);
  let body: Buffer = Buffer.from(
    options.body ?? (format === 'protobuf' ? toProtobuf(request) : toOtlpJson(request, 'string')),
  );
  if (options.gzip) body = gzipSync(body);
  const response = await api.inject({
    method: 'POST',
    url: '/api/otlp/v1/traces',
    payload: body,
    headers: {
      'content-type': format === 'protobuf' ? 'application/x-protobuf' : 'application/json',
      ...(options.gzip ? { 'content-encoding': 'gzip' } : {}),
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...options.headers,
    },
  });
  const raw = response.rawPayload;
  const isJson = String(response.headers['content-type']).startsWith('application/json');
  const decode = (type: typeof responseType) =>
    isJson ? JSON.parse(raw.toString() || '{}') : type.toObject(type.decode(raw), { longs: String });
  return {
    status: response.statusCode,
    headers: response.headers,
    /** ExportTraceServiceResponse for 200, google.rpc.Status otherwise. */
    body: response.statusCode === 200 ? decode(responseType) : decode(statusType),
  };
}
