import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, enableTracing } from '../../../api/admin/commands.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import { parseConfig } from '../../../platform/config.ts';
import { checkingIntervalMs } from '../../../platform/server-options.ts';
import { createDesktop } from '../../../sandbox-runtime/desktop/index.ts';
import { eventually } from '../../harness/platform.ts';
import { openScreen } from '../../harness/rfb-client.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from '../sandboxes/given.ts';

// The API's HTTP timeouts (platform/http-settings.ts) on a real listening server, set short through
// the config: a client that is slow with its headers, whose body stops arriving, or whose body
// keeps trickling past the request timeout is answered 408 in its surface's shape and its
// connection closed by the server within the configured time; an idle keep-alive connection is
// closed after its timeout; and what may rightly take longer is not cut, since the timeouts
// cover receiving a request only: an exec's answer, and the live screen's WebSocket.

const timeouts = parseConfig({
  ...process.env,
  ORRERY_HTTP_HEADERS_TIMEOUT_MS: '1000',
  ORRERY_HTTP_BODY_IDLE_TIMEOUT_MS: '1000',
  ORRERY_HTTP_REQUEST_TIMEOUT_MS: '2500',
  ORRERY_HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
}).http;
/** Each timeout is checked every `checkingIntervalMs` of it; the rest is room for a shared, busy machine. */
const lateByAtMostMs = checkingIntervalMs(Math.max(timeouts.headersMs, timeouts.bodyIdleMs)) + 1_000;
/** Node keeps an idle keep-alive socket this much longer than it advertises (keepAliveTimeoutBuffer). */
const nodeKeepAliveBufferMs = 1_000;

let api: SandboxApi;
let port: number;
let tracingKey: string;
let sandboxId: string;
beforeAll(async () => {
  api = await givenSandboxApi((runtime) => ({ desktop: createDesktop(runtime) }), { httpTimeouts: timeouts });
  port = (api.platform.api.server.address() as { port: number }).port;
  tracingKey = (await createApiKey(api.platform.admin, api.orgId, ['traces:write'])).key;
  await enableTracing(api.platform.admin, api.orgId);
  await eventually(
    async () =>
      api.platform.directory.org(api.orgId)?.tracingEnabled &&
      api.platform.directory.principal(hashApiKey(tracingKey)),
    5_000,
    'the tracing key',
  );
  sandboxId = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data.id;
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

interface RawConnection {
  socket: Socket;
  /** Resolves when the server closes the connection: after how long, and what it had sent. */
  closed: Promise<{ afterMs: number; received: string }>;
}

/** A TCP connection to the API that writes only what the test says; timed from the first byte. */
async function rawConnection(): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const opened = performance.now();
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  // The server may reset rather than close; either way the connection ends.
  socket.on('error', () => {});
  const closed = new Promise<{ afterMs: number; received: string }>((resolve) =>
    socket.once('close', () => resolve({ afterMs: performance.now() - opened, received })),
  );
  return { socket, closed };
}

/** Headers of a request promising a 1,000-byte body. */
function promisingHeaders(path: string, bearer: string, contentType: string): string {
  return [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${bearer}`,
    `Content-Type: ${contentType}`,
    'Content-Length: 1000',
    '',
    '',
  ].join('\r\n');
}

function expectCutAfter(closed: { afterMs: number; received: string }, timeoutMs: number) {
  expect(closed.received).toMatch(/^HTTP\/1\.1 408 /);
  expect(closed.received).toMatch(/request_timeout/);
  expect(closed.afterMs).toBeGreaterThanOrEqual(timeoutMs - 50);
  expect(closed.afterMs).toBeLessThan(timeoutMs + lateByAtMostMs);
}

describe('a client that stops sending', () => {
  it('is cut off once its body sends nothing for the body timeout, short of its Content-Length (OTLP, streamed)', async () => {
    const { socket, closed } = await rawConnection();
    socket.write(promisingHeaders('/api/otlp/v1/traces', tracingKey, 'application/json'));
    socket.write('{"resourceSpans"'); // 15 of the 1,000 bytes promised, then nothing
    expectCutAfter(await closed, timeouts.bodyIdleMs);
  });

  it('is cut off the same on a route whose JSON body Fastify reads', async () => {
    const { socket, closed } = await rawConnection();
    socket.write(promisingHeaders('/api/sandboxes', api.key, 'application/json'));
    socket.write('{"metadata":{"a');
    expectCutAfter(await closed, timeouts.bodyIdleMs);
  });

  it('is cut off at the request timeout when its body keeps trickling in, a byte every 200 ms', async () => {
    const { socket, closed } = await rawConnection();
    socket.write(promisingHeaders('/api/sandboxes', api.key, 'application/json'));
    let sent = 0;
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(sent++ === 0 ? '{' : ' ');
    }, 200);
    const cut = await closed;
    clearInterval(trickle);
    expectCutAfter(cut, timeouts.requestMs);
    expect(sent).toBeGreaterThan(timeouts.requestMs / 400); // still sending: not the body timeout
  });

  it('is cut off at the headers timeout while its headers trickle in, a line every 200 ms', async () => {
    const { socket, closed } = await rawConnection();
    socket.write('GET /api/sandboxes HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    let line = 0;
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Slow-${line++}: yes\r\n`);
    }, 200);
    const cut = await closed;
    clearInterval(trickle);
    expectCutAfter(cut, timeouts.headersMs);
    expect(line).toBeGreaterThan(2); // it was still sending: the cut is not an inactivity timeout
  });
});

/** A client listing sandboxes one request after another for `ms`: each answered 200; its latencies. */
async function normalClient(ms: number): Promise<string> {
  const latencies: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const sent = performance.now();
    const answer = await fetch(`http://127.0.0.1:${port}/api/sandboxes`, {
      headers: { authorization: `Bearer ${api.key}` },
    });
    await answer.arrayBuffer();
    expect(answer.status).toBe(200);
    latencies.push(performance.now() - sent);
  }
  latencies.sort((a, b) => a - b);
  const at = (share: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))]!;
  return `${latencies.length} requests, p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms`;
}

describe('1,000 slow clients at once', () => {
  it('are each cut at their limit, while a normal client is answered throughout', async () => {
    const alone = await normalClient(timeouts.requestMs);
    // As slowloris clients: half trickle their headers, half their body, a line or a byte every
    // 300 ms (never idle for the body timeout). Each writes as it connects, since Node times the
    // headers from the connection's opening.
    const opened: RawConnection[] = [];
    let line = 0;
    const trickle = setInterval(() => {
      line += 1;
      opened.forEach(({ socket }, index) => {
        if (!socket.destroyed) socket.write(index % 2 === 0 ? `X-Slow-${line}: yes\r\n` : ' ');
      });
    }, 300);
    const slow = await Promise.all(
      Array.from({ length: 1_000 }, async (_, index) => {
        const connection = await rawConnection();
        connection.socket.write(
          index % 2 === 0
            ? 'GET /api/sandboxes HTTP/1.1\r\nHost: 127.0.0.1\r\n'
            : promisingHeaders('/api/sandboxes', api.key, 'application/json'),
        );
        opened[index] = connection;
        return connection;
      }),
    );
    const beside = await normalClient(timeouts.requestMs);
    const cuts = await Promise.all(slow.map(({ closed }) => closed));
    clearInterval(trickle);
    for (const [index, cut] of cuts.entries())
      expectCutAfter(cut, index % 2 === 0 ? timeouts.headersMs : timeouts.requestMs);
    console.log(`a normal client alone: ${alone}; beside 1,000 slow connections: ${beside}`);
  }, 40_000);
});

describe('a connection between requests', () => {
  it('is closed once idle for the keep-alive timeout, after its answer', async () => {
    const { socket, closed } = await rawConnection();
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const { afterMs, received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toMatch(/keep-alive: timeout=1\r\n/i);
    expect(afterMs).toBeGreaterThanOrEqual(timeouts.keepAliveMs);
    expect(afterMs).toBeLessThan(timeouts.keepAliveMs + nodeKeepAliveBufferMs + lateByAtMostMs);
  });
});

describe('what takes longer than the timeouts', () => {
  it('is not cut: an exec of 3 s answers on its connection', async () => {
    const started = performance.now();
    const answer = await fetch(`http://127.0.0.1:${port}/api/sandboxes/${sandboxId}/exec`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'sleep 3; echo done' }),
    });
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as { data: { exit_code: number; stdout: string } };
    expect(data).toMatchObject({ exit_code: 0, stdout: 'done\n' });
    expect(performance.now() - started).toBeGreaterThan(timeouts.requestMs);
  });

  it('is not cut: the live screen, held open and idle past every timeout, still carries input', async () => {
    const call = (method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) =>
      api.call(method, `/api/sandboxes/${sandboxId}${path}`, body ? { body } : {});
    expect((await call('POST', '/desktop', { action: 'start' })).statusCode).toBe(200);
    const minted = await call('POST', '/tokens', { abilities: ['control'] });
    const screen = await openScreen(
      `ws://127.0.0.1:${port}/api/sandboxes/${sandboxId}/screen?token=${minted.json().data.token}`,
    );
    const outlast = timeouts.requestMs + timeouts.keepAliveMs + nodeKeepAliveBufferMs + lateByAtMostMs;
    const cut = await Promise.race([
      screen.closed,
      new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), outlast)),
    ]);
    expect(cut).toBe('open');
    screen.pointer(120, 130);
    const cursor = async () => (await call('POST', '/desktop/input', { action: 'cursor' })).json().data;
    await expect.poll(cursor, { timeout: 5_000 }).toEqual({ x: 120, y: 130 });
    screen.close();
  }, 60_000);
});
