import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalMessage } from '../../../domain/tracing/admission.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { exportSpans, llmSpan, spanId, traceId, tracingOrg } from '../../harness/tracing.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ consumers: true });
});
afterAll(() => platform.stop());

async function ledgerMonth(orgId: string) {
  const result = await platform.pool.query('SELECT spans, bytes FROM ingest_monthly WHERE org_id = $1', [
    orgId,
  ]);
  return result.rows[0] ?? { spans: 0, bytes: 0 };
}

describe('POST /api/otlp/v1/traces: the 200 rows', () => {
  it.each(['protobuf', 'json'] as const)(
    'stores every span (%s, gzip) and answers an empty response in kind',
    async (format) => {
      const { orgId, key } = await tracingOrg(platform);
      const trace = traceId();
      const spans = [llmSpan({ traceId: trace }), llmSpan({ traceId: trace }), llmSpan()];
      const answer = await exportSpans(platform.api, { spans, key, format, gzip: true });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe(
        format === 'json' ? 'application/json' : 'application/x-protobuf',
      );
      expect(answer.body).toEqual({});
      expect(await ledgerMonth(orgId)).toMatchObject({ spans: 3 });
    },
  );

  it('succeeds on a request with no spans', async () => {
    const { key } = await tracingOrg(platform);
    const answer = await exportSpans(platform.api, { spans: [], key });
    expect(answer).toMatchObject({ status: 200, body: {} });
  });

  it('neither stores nor counts again a span already stored', async () => {
    const { orgId, key } = await tracingOrg(platform);
    const spans = [llmSpan(), llmSpan()];
    expect((await exportSpans(platform.api, { spans, key })).status).toBe(200);
    const before = await ledgerMonth(orgId);
    const again = await exportSpans(platform.api, { spans, key, format: 'json' });
    expect(again).toMatchObject({ status: 200, body: {} });
    expect(await ledgerMonth(orgId)).toEqual(before);
  });

  it('keeps the new spans of a trace it knows and only those, whichever request brings them', async () => {
    const { orgId, key } = await tracingOrg(platform);
    const trace = traceId();
    const [first, second, third] = [1, 2, 3].map(() => llmSpan({ traceId: trace, spanId: spanId() }));
    expect((await exportSpans(platform.api, { spans: [first!, second!], key })).status).toBe(200);
    expect((await exportSpans(platform.api, { spans: [second!, third!, third!], key })).status).toBe(200);
    expect(Number((await ledgerMonth(orgId)).spans)).toBe(3);
    const ledger = await platform.pool.query<{ ids: string[] }>(
      `SELECT array(SELECT lpad(to_hex(id), 16, '0') FROM unnest(span_ids) AS id ORDER BY id) AS ids
         FROM ingest_traces WHERE org_id = $1`,
      [orgId],
    );
    expect(ledger.rows.map((row) => [...row.ids].sort())).toEqual([
      [first!.spanId, second!.spanId, third!.spanId].sort(),
    ]);
  });

  it('refuses bad ids and bad times with partial_success, keeping the rest', async () => {
    const { orgId, key } = await tracingOrg(platform);
    const spans = [
      llmSpan(),
      llmSpan({ traceId: '00000000000000000000000000000000' }),
      llmSpan({ spanId: '' }),
      llmSpan({ spanId: 'abcd' }),
      llmSpan({ endTimeUnixNano: 2n ** 63n }),
      llmSpan(),
    ];
    const answer = await exportSpans(platform.api, { spans, key });
    expect(answer.status).toBe(200);
    expect(answer.body.partialSuccess).toEqual({
      rejectedSpans: '4',
      errorMessage: refusalMessage({ bad_id: 3, bad_time: 1 }, new Date()),
    });
    expect(answer.body.partialSuccess.errorMessage).toBe(
      '3 spans had a trace or span id that is missing, all zeros or of the wrong length; 1 spans had a start or end time past the year 2262',
    );
    expect(await ledgerMonth(orgId)).toMatchObject({ spans: 2 });
  });

  it('refuses the spans that would take a trace past 10,000', async () => {
    const { key } = await tracingOrg(platform);
    const trace = traceId();
    const spans = Array.from({ length: 10_001 }, () =>
      llmSpan({ traceId: trace, spanId: spanId(), attributes: [], name: 'step' }),
    );
    const answer = await exportSpans(platform.api, { spans, key, gzip: true });
    expect(answer.status).toBe(200);
    expect(answer.body.partialSuccess).toEqual({
      rejectedSpans: '1',
      errorMessage: '1 spans would have taken a trace past 10,000 spans',
    });
    const more = await exportSpans(platform.api, { spans: [llmSpan({ traceId: trace })], key });
    expect(more.body.partialSuccess.rejectedSpans).toBe('1');
  });

  it('refuses spans of a trace deleted in the last 24 hours', async () => {
    const { key } = await tracingOrg(platform);
    const trace = traceId();
    expect((await exportSpans(platform.api, { spans: [llmSpan({ traceId: trace })], key })).status).toBe(200);
    const deleted = await platform.api.inject({
      method: 'DELETE',
      url: `/api/traces/${trace}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ data: { trace_id: trace, deleted: true } });
    const answer = await exportSpans(platform.api, { spans: [llmSpan({ traceId: trace }), llmSpan()], key });
    expect(answer.body.partialSuccess).toEqual({
      rejectedSpans: '1',
      errorMessage: '1 spans belong to traces deleted in the last 24 hours',
    });
    const unknown = await platform.api.inject({
      method: 'DELETE',
      url: `/api/traces/${traceId()}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('POST /api/otlp/v1/traces: the error rows', () => {
  const statusOf = (answer: Awaited<ReturnType<typeof exportSpans>>) => ({
    status: answer.status,
    code: String(answer.body.message).split(':')[0],
  });

  it('401 unauthorized without a key or with an unknown one', async () => {
    for (const key of [undefined, 'orr_unknown']) {
      const answer = await exportSpans(platform.api, { spans: [llmSpan()], key });
      expect(statusOf(answer)).toEqual({ status: 401, code: 'unauthorized' });
      expect(answer.body.code).toBe(16);
      expect(answer.body.message).toMatch(/^unauthorized: send the header Authorization: Bearer/);
    }
  });

  it('403 insufficient_scope for a key without traces:write, 403 tracing_not_enabled outside the beta', async () => {
    const noScope = await tracingOrg(platform, { scopes: ['inference:invoke'] });
    const scoped = await exportSpans(platform.api, { spans: [llmSpan()], key: noScope.key, format: 'json' });
    expect(statusOf(scoped)).toEqual({ status: 403, code: 'insufficient_scope' });
    expect(scoped.headers['content-type']).toBe('application/json');
    const notEnabled = await tracingOrg(platform, { tracing: false });
    const refused = await exportSpans(platform.api, { spans: [llmSpan()], key: notEnabled.key });
    expect(statusOf(refused)).toEqual({ status: 403, code: 'tracing_not_enabled' });
    expect(refused.body.message).toMatch(/Tracing page of the dashboard/);
  });

  it('400 invalid_otlp for a body that is not an ExportTraceServiceRequest', async () => {
    const { key } = await tracingOrg(platform);
    const garbage = await exportSpans(platform.api, {
      spans: [],
      key,
      body: Buffer.from([0x0a, 0xff, 0xff, 0x01]),
    });
    expect(statusOf(garbage)).toEqual({ status: 400, code: 'invalid_otlp' });
    const array = await exportSpans(platform.api, { spans: [], key, format: 'json', body: '[1,2]' });
    expect(statusOf(array)).toEqual({ status: 400, code: 'invalid_otlp' });
  });

  it('413 payload_too_large over 4 MiB as sent or 16 MiB uncompressed', async () => {
    const { key } = await tracingOrg(platform);
    const big = await exportSpans(platform.api, {
      spans: [],
      key,
      body: Buffer.alloc(4 * 1024 * 1024 + 1, 0x41),
    });
    expect(statusOf(big)).toEqual({ status: 413, code: 'payload_too_large' });
    expect(big.body.message).toMatch(/smaller export batch/);
    const bomb = await exportSpans(platform.api, {
      spans: [],
      key,
      gzip: true,
      body: Buffer.alloc(17 * 1024 * 1024),
    });
    expect(statusOf(bomb)).toEqual({ status: 413, code: 'payload_too_large' });
  });

  it('415 unsupported_media_type for another content type or encoding', async () => {
    const { key } = await tracingOrg(platform);
    const text = await exportSpans(platform.api, {
      spans: [llmSpan()],
      key,
      headers: { 'content-type': 'text/plain' },
    });
    expect(statusOf(text)).toEqual({ status: 415, code: 'unsupported_media_type' });
    const brotli = await exportSpans(platform.api, {
      spans: [llmSpan()],
      key,
      headers: { 'content-encoding': 'br' },
    });
    expect(statusOf(brotli)).toEqual({ status: 415, code: 'unsupported_media_type' });
  });
});
