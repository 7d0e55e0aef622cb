import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../../api/app.ts';
import { limits } from '../../../domain/tracing/limits.ts';
import { logger } from '../../../platform/logger.ts';
import { deadKafkaProducer, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { exportSpans, llmSpan, tracingOrg } from '../../harness/tracing.ts';

// The monthly limits are provoked with smaller limits configured, not by sending 5 GiB.
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({
    consumers: true,
    tracingLimits: { spansPerTrace: limits.spansPerTrace, monthlySpans: 5, monthlyBytes: 64 * 1024 },
  });
});
afterAll(() => platform.stop());

const month = () => new Date().toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const nextMonth = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
};

describe('monthly limits', () => {
  it('refuses spans past the monthly span count, naming the month and the date spans are accepted again', async () => {
    const { key } = await tracingOrg(platform);
    expect((await exportSpans(platform.api, { spans: [llmSpan(), llmSpan(), llmSpan()], key })).status).toBe(
      200,
    );
    const answer = await exportSpans(platform.api, {
      spans: [llmSpan(), llmSpan(), llmSpan(), llmSpan()],
      key,
    });
    expect(answer.body.partialSuccess).toEqual({
      rejectedSpans: '2',
      errorMessage: `the org has kept 5 spans in ${month()}; spans are accepted again on ${nextMonth()}`,
    });
  });

  it('refuses spans past the monthly data', async () => {
    const { key } = await tracingOrg(platform);
    const blob = (key: string) => ({ key, value: { kind: 'string' as const, value: 'x'.repeat(8000) } });
    const big = () => llmSpan({ attributes: [blob('a'), blob('b'), blob('c')] });
    const answer = await exportSpans(platform.api, {
      spans: [big(), big(), big(), big(), big()],
      key,
      gzip: true,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.partialSuccess.errorMessage).toMatch(
      new RegExp(
        `^the org has kept .* GiB of spans in ${month()}; spans are accepted again on ${nextMonth()}$`,
      ),
    );
    expect(Number(answer.body.partialSuccess.rejectedSpans)).toBeGreaterThan(0);
  });
});

describe('503 tracing_unavailable', () => {
  it('answers 503 with Retry-After when Kafka cannot be reached, and keeps nothing of the request', async () => {
    const { orgId, key } = await tracingOrg(platform);
    const deadKafka = await deadKafkaProducer();
    const api = await buildApi({
      logger,
      directory: platform.directory,
      producer: deadKafka,
      pool: platform.pool,
      ready: () => true,
    });
    try {
      const answer = await exportSpans(api, { spans: [llmSpan(), llmSpan()], key });
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.body.message).toMatch(/^tracing_unavailable: nothing from this request was stored/);
      const ledger = await platform.pool.query(
        'SELECT coalesce(sum(cardinality(span_ids)), 0)::int AS n FROM ingest_traces WHERE org_id = $1',
        [orgId],
      );
      expect(ledger.rows[0].n).toBe(0);
      const month = await platform.pool.query('SELECT 1 FROM ingest_monthly WHERE org_id = $1', [orgId]);
      expect(month.rowCount).toBe(0);
    } finally {
      await api.close();
      await deadKafka.disconnect().catch(() => undefined);
    }
  });
});
