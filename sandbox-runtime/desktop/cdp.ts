import type { createConnection } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import { waitFor } from '../../platform/poll.ts';
import type { SandboxRuntime } from '../runtime.ts';
import { desktopPorts } from './processes.ts';

// The browser's Chrome DevTools Protocol, reached from the host. The WebSocket runs over the
// runtime's `connect` (a relay into the sandbox's network namespace), not over a `forward`ed host
// port: DevTools has no authentication, and a host port would hand the browser to every local
// process. One connection per operation (a relay costs about 50 ms); `flatten` sessions carry
// the page-level commands on the same socket.

const callTimeoutMs = 15_000;

export class CdpError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message}`);
    this.name = 'CdpError';
  }
}

/** The browser did not answer in time: its page is busy (or crashed). */
export class CdpTimeout extends Error {
  constructor(
    readonly method: string,
    timeoutMs: number,
  ) {
    super(`${method}: no answer from the browser within ${timeoutMs / 1000} s (the page may be busy)`);
    this.name = 'CdpTimeout';
  }
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

interface Reply {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string };
}

export class Cdp {
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => this.receive(JSON.parse(data.toString()) as Reply));
    socket.on('close', () => this.failAll(new Error('the DevTools connection closed')));
    socket.on('error', (error) => this.failAll(error));
  }

  /** Connects to the browser's DevTools WebSocket at `path` (`/devtools/browser/<id>`). */
  static async open(runtime: SandboxRuntime, sandboxId: string, path: string): Promise<Cdp> {
    const stream: Duplex = await runtime.connect(sandboxId, desktopPorts.devtools);
    const socket = new WebSocket(`ws://127.0.0.1:${desktopPorts.devtools}${path}`, {
      createConnection: (() => stream) as unknown as typeof createConnection,
      maxPayload: 256 * 1024 * 1024,
      perMessageDeflate: false,
    });
    await new Promise<void>((resolve, reject) => {
      // A browser that accepted the connection but does not run (stopped, hung) never answers.
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new CdpTimeout('the DevTools connection', callTimeoutMs));
      }, callTimeoutMs);
      socket.once('open', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once('unexpected-response', (_request, response) => {
        clearTimeout(timer);
        reject(new Error(`DevTools refused the connection (${response.statusCode})`));
      });
    });
    return new Cdp(socket);
  }

  send<T>(method: string, params: object = {}, sessionId?: string, timeoutMs = callTimeoutMs): Promise<T> {
    const id = this.next++;
    const message = sessionId === undefined ? { id, method, params } : { id, method, params, sessionId };
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new CdpTimeout(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, timer });
      this.socket.send(JSON.stringify(message));
    });
  }

  close(): void {
    this.socket.close();
    this.failAll(new Error('the DevTools connection closed'));
  }

  private receive(reply: Reply): void {
    if (reply.id === undefined) return; // an event: none is subscribed to
    const call = this.pending.get(reply.id);
    if (!call) return;
    this.pending.delete(reply.id);
    clearTimeout(call.timer);
    if (reply.error) call.reject(new CdpError(call.method, reply.error.code, reply.error.message));
    else call.resolve(reply.result);
  }

  private failAll(error: Error): void {
    for (const [id, call] of this.pending) {
      clearTimeout(call.timer);
      call.reject(error);
      this.pending.delete(id);
    }
  }
}

/** Runs `work` with a connection to the sandbox's browser, closed afterwards. */
export async function withBrowser<T>(
  runtime: SandboxRuntime,
  sandboxId: string,
  path: string,
  work: (cdp: Cdp) => Promise<T>,
): Promise<T> {
  const cdp = await Cdp.open(runtime, sandboxId, path);
  try {
    return await work(cdp);
  } finally {
    cdp.close();
  }
}

export interface PageTarget {
  targetId: string;
  type: string;
  title: string;
  url: string;
}

/** The browser's tabs (page targets). */
export async function pages(cdp: Cdp): Promise<PageTarget[]> {
  const { targetInfos } = await cdp.send<{ targetInfos: PageTarget[] }>('Target.getTargets');
  return targetInfos.filter((target) => target.type === 'page');
}

/** A session attached to `target`, for page-level commands. */
export async function attach(cdp: Cdp, target: PageTarget): Promise<string> {
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', {
    targetId: target.targetId,
    flatten: true,
  });
  return sessionId;
}

/** How long a tab may take to say whether it is shown: a busy or crashed one never answers. */
const visibilityTimeoutMs = 3_000;

/**
 * The tab shown in the browser's window: the page whose document is visible, asked of every
 * candidate at once; failing that, the first that answered.
 */
export async function activePage(
  cdp: Cdp,
  candidates: readonly PageTarget[],
): Promise<{ target: PageTarget; sessionId: string } | undefined> {
  const answers = await Promise.all(
    candidates.map(async (target) => {
      try {
        const sessionId = await attach(cdp, target);
        const { result } = await cdp.send<{ result: { value?: unknown } }>(
          'Runtime.evaluate',
          { expression: 'document.visibilityState', returnByValue: true },
          sessionId,
          visibilityTimeoutMs,
        );
        return { target, sessionId, visible: result.value === 'visible' };
      } catch {
        return undefined;
      }
    }),
  );
  const answered = answers.filter((answer) => answer !== undefined);
  return answered.find((answer) => answer.visible) ?? answered[0];
}

/** Opens each URL in a new foreground tab (spec, Input actions: `open`); the last one is shown. */
export async function openTabs(cdp: Cdp, urls: readonly string[]): Promise<void> {
  for (const url of urls) await cdp.send('Target.createTarget', { url });
}

/** Waits until the browser has a tab (right after start it may have none yet). */
export async function waitForTab(cdp: Cdp, timeoutMs: number): Promise<void> {
  await waitFor('a tab in the browser', async () => (await pages(cdp)).length > 0, {
    timeoutMs,
    intervalMs: 100,
  });
}

/** `Chrome/156.0.8078.79` → `chromium 156.0.8078.79`. */
export async function browserName(cdp: Cdp): Promise<string> {
  const { product } = await cdp.send<{ product: string }>('Browser.getVersion');
  return `chromium ${product.slice(product.indexOf('/') + 1)}`;
}
