import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import { grpcCodes } from '../../../api/otlp/errors.ts';
import { kafkaComponent } from '../../../infra/stack/kafka.ts';
import { readPid } from '../../../infra/stack/processes.ts';
import { config } from '../../../platform/config.ts';
import { eventually } from '../../harness/platform.ts';
import { exportSpans, llmSpan, tracingOrg } from '../../harness/tracing.ts';
import {
  type Customer,
  type InferenceService,
  invoke,
  newCustomer,
  startInferenceService,
  titleBody,
} from '../inference/service.ts';

// Fast, well-formed refusals (issue 11, item 3): while Kafka does not answer, OTLP and title
// requests get their surface's 503 with Retry-After within 2 s (an OTLP exporter gives up after
// 10 s), at once once the API has seen it away, without asking the model; and they are served
// again by themselves once it answers. The shared stack's broker is paused (SIGSTOP), the
// harder case for a client: its connections stay open and nothing answers on them.

let service: InferenceService;
let customer: Customer;
let tracingKey: string;
let kafkaPid: number;
let paused = false;

const pauseKafka = (signal: 'SIGSTOP' | 'SIGCONT') => {
  process.kill(-kafkaPid, signal);
  paused = signal === 'SIGSTOP';
};

beforeAll(async () => {
  const pid = readPid(kafkaComponent(config()).daemons[0]!);
  if (pid === undefined) throw new Error('the shared stack’s Kafka is not running');
  kafkaPid = pid;
  service = await startInferenceService();
  customer = await newCustomer(service);
  ({ key: tracingKey } = await tracingOrg(service.platform));
  await eventually(
    async () => service.platform.directory.principal(hashApiKey(tracingKey)),
    15_000,
    'the tracing key in the directory',
  );
});

afterAll(async () => {
  if (paused) pauseKafka('SIGCONT');
  await service?.stop();
});

const title = () => invoke(service.api, 'scribe/v1/titles', titleBody, customer.key);
const otlp = () => exportSpans(service.api, { spans: [llmSpan()], key: tracingKey });
const kafkaCheck = async () =>
  (await service.api.inject({ method: 'GET', url: '/readyz' })).json().checks.kafka;

async function timed<T>(request: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now();
  const answer = await request();
  return { answer, ms: performance.now() - started };
}

describe('while Kafka does not answer', () => {
  it('refuses OTLP and titles with 503 and Retry-After within 2 s, and serves them again once it answers', async () => {
    expect((await otlp()).status).toBe(200);
    expect((await title()).statusCode).toBe(200);

    pauseKafka('SIGSTOP');
    try {
      // In flight as the broker stops: refused within the publish timeout, not the exporter's.
      const inFlight = await Promise.all([timed(otlp), timed(title)]);
      expect(inFlight.map(({ answer }) => ('status' in answer ? answer.status : answer.statusCode))).toEqual([
        503, 503,
      ]);
      for (const { ms } of inFlight) expect(ms).toBeLessThan(2_000);

      await eventually(
        async () => ((await kafkaCheck()) === 'unreachable' ? true : undefined),
        5_000,
        '/readyz to report kafka unreachable',
      );
      const asked = service.model.requests.length;
      const refusedExport = await timed(otlp);
      expect(refusedExport.ms).toBeLessThan(500);
      expect(refusedExport.answer.status).toBe(503);
      expect(refusedExport.answer.headers['retry-after']).toBe('5');
      expect(refusedExport.answer.body.code).toBe(grpcCodes.UNAVAILABLE);
      expect(refusedExport.answer.body.message).toMatch(/^tracing_unavailable: .*Kafka cannot be reached/);

      const refusedTitle = await timed(title);
      expect(refusedTitle.ms).toBeLessThan(500);
      expect(refusedTitle.answer.statusCode).toBe(503);
      expect(refusedTitle.answer.headers['retry-after']).toBe('5');
      expect(refusedTitle.answer.json().error).toMatchObject({
        code: 'usage_unavailable',
        type: 'api_error',
      });
      // Refused before the model was asked: nothing to bill, nothing spent upstream.
      expect(service.model.requests.length).toBe(asked);
    } finally {
      pauseKafka('SIGCONT');
    }

    await eventually(
      async () => ((await otlp()).status === 200 ? true : undefined),
      30_000,
      'OTLP served again',
    );
    expect((await title()).statusCode).toBe(200);
    expect(await kafkaCheck()).toBe('ok');
  });
});
