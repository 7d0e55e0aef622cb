import { randomBytes, randomUUID } from 'node:crypto';
import { request as otlpRequest, span, toOtlpJson } from './otlp-fixtures.ts';

// OTLP and title clients that retry as real ones do (an exporter resends the same body, an SDK the
// same Idempotency-Key) and keep a record of every answer they met, for a test that kills parts
// of the platform under them (test/int/backbone/chaos.int.test.ts, test/int/fleet/). Given several
// API replicas, each request goes to the next, as a round-robin load balancer sends them, and a
// request no replica answered is sent again to the next one.

export interface Met {
  /** OTLP exports, title requests, and reads of the read models (trace lists and analytics). */
  surface: 'otlp' | 'title' | 'read';
  at: number;
  /** 0 when no answer came (connection refused or reset, or no answer in 15 s). */
  status: number;
  /** For a 503: it had Retry-After and the surface's error body; else what was wrong. */
  problem?: string;
}

/** One request and its answer (status 0: none came), by when each happened (Date.now()). */
export interface Exchange {
  surface: Met['surface'];
  sentAt: number;
  answeredAt: number;
  status: number;
}

export interface ChaosLoad {
  /** Every request sent, answered or not, in the order answered. */
  readonly exchanges: Exchange[];
  /**
   * Every answer other than 200, in order, and every 200 that refused spans (`partial_success`,
   * 001 "Refused spans"; its `problem` says how many and why).
   */
  readonly refusals: Met[];
  /**
   * Span keys (`trace:span`) of exports answered 200 without `partial_success`: only those are
   * promised to be stored. A 200 that refused some spans does not say which, so none of its spans
   * count as acknowledged.
   */
  readonly acknowledgedSpans: string[];
  /** Span keys of every export sent, answered or not. */
  readonly sentSpans: string[];
  /** Request ids of title requests answered 200. */
  readonly answeredTitles: string[];
  /** Answers of 200 so far, by surface. */
  served(surface: Met['surface']): number;
  /** When the first 200 came (Date.now()) of the surface's requests sent after `since`, if one has. */
  firstServedAfter(surface: Met['surface'], since: number): number | undefined;
  /** Stops starting new requests; each in hand is retried until answered, or until `deadline`. */
  stop(deadline: number): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The two loads against `apiUrl` with `key`: `exporters` OTLP clients, `titlers` title clients. */
export function startChaosLoad(options: {
  /** One API, or its replicas in turn. */
  apiUrl: string | readonly string[];
  key: string;
  model: string;
  exporters: number;
  titlers: number;
  /** Clients reading traces and analytics in turn; none when absent. */
  readers?: number;
}): ChaosLoad {
  const refusals: Met[] = [];
  const exchanges: Exchange[] = [];
  const acknowledgedSpans: string[] = [];
  const sentSpans: string[] = [];
  const answeredTitles: string[] = [];
  const servedCount: Record<Met['surface'], number> = { otlp: 0, title: 0, read: 0 };
  let stopping = false;
  let deadline = Number.POSITIVE_INFINITY;

  const apiUrls = typeof options.apiUrl === 'string' ? [options.apiUrl] : options.apiUrl;
  let turn = 0;

  async function post(path: string, body: string, headers: Record<string, string>) {
    return call(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json', ...headers },
      body,
    });
  }

  async function call(path: string, init: RequestInit) {
    const apiUrl = apiUrls[turn++ % apiUrls.length];
    try {
      const response = await fetch(`${apiUrl}${path}`, { ...init, signal: AbortSignal.timeout(15_000) });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch {
      return { status: 0, headers: new Headers(), text: '' };
    }
  }

  /** Sends until 200 (or the deadline once stopping); records what else it met. */
  async function untilServed(
    surface: Met['surface'],
    send: () => ReturnType<typeof post>,
  ): Promise<Awaited<ReturnType<typeof post>> | undefined> {
    for (;;) {
      const sentAt = Date.now();
      const answer = await send();
      exchanges.push({ surface, sentAt, answeredAt: Date.now(), status: answer.status });
      if (answer.status === 200) {
        servedCount[surface]++;
        return answer;
      }
      refusals.push({ surface, at: Date.now(), status: answer.status, problem: problemOf(surface, answer) });
      if (Date.now() > deadline) return undefined;
      // Sooner than Retry-After asks, as exporters with short backoffs do: more answers to check.
      await pause(250);
    }
  }

  async function exporter() {
    while (!stopping) {
      const spans = Array.from({ length: 20 }, (_, index) =>
        span({
          traceId: randomBytes(16).toString('hex'),
          spanId: randomBytes(8).toString('hex'),
          name: `step ${index}`,
          startTimeUnixNano: BigInt(Date.now()) * 1_000_000n,
          endTimeUnixNano: BigInt(Date.now() + 5) * 1_000_000n,
        }),
      );
      const body = toOtlpJson(otlpRequest(spans), 'string');
      const keys = spans.map((each) => `${each.traceId}:${each.spanId}`);
      sentSpans.push(...keys);
      const answer = await untilServed('otlp', () => post('/api/otlp/v1/traces', body, {}));
      const refused = answer && partialSuccessOf(answer.text);
      if (refused) refusals.push({ surface: 'otlp', at: Date.now(), status: 200, problem: refused });
      else if (answer) acknowledgedSpans.push(...keys);
      await pause(50);
    }
  }

  async function titler() {
    while (!stopping) {
      const idempotencyKey = randomUUID();
      const body = JSON.stringify({ messages: [{ role: 'user', content: 'How do I reset my password?' }] });
      const answer = await untilServed('title', () =>
        post(`/api/inference/${options.model}/v1/titles`, body, { 'idempotency-key': idempotencyKey }),
      );
      const requestId = answer?.headers.get('x-request-id');
      if (requestId) answeredTitles.push(requestId);
      await pause(50);
    }
  }

  async function reader() {
    const reads = ['/api/traces?limit=50', '/api/analytics/latency'];
    for (let turn = 0; !stopping; turn++) {
      const path = reads[turn % reads.length]!;
      await untilServed('read', () => call(path, { headers: { authorization: `Bearer ${options.key}` } }));
      await pause(50);
    }
  }

  const workers = [
    ...Array.from({ length: options.exporters }, exporter),
    ...Array.from({ length: options.titlers }, titler),
    ...Array.from({ length: options.readers ?? 0 }, reader),
  ];
  return {
    exchanges,
    refusals,
    acknowledgedSpans,
    sentSpans,
    answeredTitles,
    served: (surface) => servedCount[surface],
    firstServedAfter: (surface, since) =>
      exchanges.find((met) => met.surface === surface && met.status === 200 && met.sentAt > since)
        ?.answeredAt,
    async stop(until) {
      stopping = true;
      deadline = until;
      await Promise.all(workers);
    },
  };
}

/**
 * What an OTLP/JSON 200 refused, as `partial_success` puts it (`rejectedSpans` is an int64, so a
 * decimal string); undefined when it refused nothing. An exporter does not retry these spans.
 */
export function partialSuccessOf(text: string): string | undefined {
  let body: { partialSuccess?: { rejectedSpans?: unknown; errorMessage?: unknown } };
  try {
    body = JSON.parse(text || '{}');
  } catch {
    return `200 whose body is not JSON: ${text.slice(0, 200)}`;
  }
  const partial = body.partialSuccess;
  if (partial === undefined) return undefined;
  const rejected = Number(partial.rejectedSpans ?? 0);
  const message = String(partial.errorMessage ?? '');
  // A partial_success with no spans refused is a warning only (OTLP), never a lost span.
  if (rejected === 0) return undefined;
  return `200 with partial_success: ${rejected} spans refused (${message})`;
}

/** What is wrong with an answer that is not 200: anything but a well-formed 503 is. */
function problemOf(
  surface: Met['surface'],
  answer: { status: number; headers: Headers; text: string },
): string | undefined {
  if (answer.status === 0) return 'no answer';
  if (answer.status !== 503) return `status ${answer.status}: ${answer.text.slice(0, 200)}`;
  if (!(Number(answer.headers.get('retry-after')) > 0)) return '503 without Retry-After';
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `503 whose body is not JSON: ${answer.text.slice(0, 200)}`;
  }
  const error = (body as { error?: { code?: unknown; type?: unknown; message?: unknown } }).error;
  const wellFormed =
    surface === 'otlp'
      ? (body as { code?: unknown; message?: unknown }).code === 14 &&
        String((body as { message?: unknown }).message).startsWith('tracing_unavailable: ')
      : surface === 'title'
        ? error?.code === 'usage_unavailable' && error?.type === 'api_error'
        : error?.code === 'unavailable' && typeof error?.message === 'string';
  return wellFormed ? undefined : `503 not in the ${surface} error shape: ${answer.text.slice(0, 200)}`;
}
