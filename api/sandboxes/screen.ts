import type { IncomingMessage } from 'node:http';
import { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { requireDesktop } from '../../domain/sandboxes/decide.ts';
import { sandboxRoutes } from '../../domain/sandboxes/routes.ts';
import type { Sandbox } from '../../domain/sandboxes/sandbox.ts';
import { minterGoneCloses, type ScreenClose, screenCloses } from '../../domain/sandboxes/screen-closes.ts';
import { screenInputAllowed } from '../../domain/sandboxes/tokens.ts';
import type { Logger } from '../../platform/logger.ts';
import { rfbFilterStream } from '../../sandbox-runtime/desktop/index.ts';
import { sandboxErrorResponses } from '../error-responses.ts';
import { ApiError } from '../errors.ts';
import { type Caller, guard } from './access.ts';
import { idParams, type SandboxContext } from './context.ts';

/** How often an open screen looks whether its token's minter is still active. */
const minterCheckMs = 1000;

// The live screen (spec, "Endpoints": `GET /sandboxes/:id/screen?token=<token>`, a WebSocket
// carrying VNC (RFB) in binary frames; "Embeddable screen"). Upgrades go through Fastify's own
// routing, as @fastify/websocket does it, so the screen route has the same auth hook, token
// checks and error bodies as every other route: a refusal is an ordinary HTTP answer (401, 403,
// 409) instead of the 101. Once upgraded, frames are relayed both ways between the page and the
// host that holds the sandbox (sandbox-host/screen.ts, over a WebSocket of its own); what the
// page sends passes the RFB filter, which drops keyboard and pointer input for a `view` token
// whatever the page's mode.
//
// A connection closes cleanly (1000) when the token expires, and with the host's words when the
// desktop or the sandbox stops or the sandbox is destroyed; with 1001 when the API shuts down,
// 1011 when the host is lost: each close a page may hear is in domain/sandboxes/screen-closes.ts.
// While open it counts as a use of the sandbox on its host (the idle timeout), bounded by the
// token's lifetime.

const upgrading = Symbol('orrery.upgrade');
interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
  upgraded: boolean;
}
type UpgradeRequest = IncomingMessage & { [upgrading]?: PendingUpgrade };

/** Sends upgrade requests through Fastify's routing with a response bound to their socket. */
export function routeUpgrades(app: FastifyInstance): void {
  const onUpgrade = (request: UpgradeRequest, socket: Duplex, head: Buffer) => {
    const pending: PendingUpgrade = { socket, head, upgraded: false };
    request[upgrading] = pending;
    const response = new ServerResponse(request);
    response.assignSocket(socket as never);
    response.on('finish', () => {
      if (!pending.upgraded) socket.end();
    });
    app.routing(request, response);
  };
  app.server.on('upgrade', onUpgrade);
  app.addHook('onClose', async () => {
    app.server.off('upgrade', onUpgrade);
  });
}

export function pendingUpgrade(request: FastifyRequest): PendingUpgrade | undefined {
  return (request.raw as UpgradeRequest)[upgrading];
}

/** Backpressure: pause the host's stream while this much is waiting to reach the page. */
const highWaterBytes = 4 * 1024 * 1024;

/** Close codes a page may be sent as they are; anything else (a host gone) becomes 1011. */
const relayedCodes = new Set([1000, 1001, 1008, 1011]);

export class ScreenHub {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private readonly open = new Set<WebSocket>();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly logger: Logger,
  ) {}

  /** Completes the upgrade and relays between the page and the host's screen until one of them ends. */
  serve(
    request: FastifyRequest,
    pending: PendingUpgrade,
    connection: { caller: Caller; sandbox: Sandbox; upstream: WebSocket; viewOnly: boolean },
  ): void {
    const { caller, sandbox, upstream } = connection;
    pending.upgraded = true;
    let served = false;
    // A handshake the WebSocket server refuses never calls back: the host's screen goes too.
    pending.socket.once('close', () => {
      if (!served) upstream.terminate();
    });
    this.server.handleUpgrade(request.raw, pending.socket, pending.head, (ws) => {
      served = true;
      this.open.add(ws);
      const closeWith = ({ code, reason }: ScreenClose) => {
        if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)
          ws.close(code, reason);
      };
      toPage(upstream, ws);
      fromPage(ws, upstream, connection.viewOnly, (error) => {
        this.logger.info(
          { err: error, sandboxId: sandbox.id },
          'screen: page sent what the filter cannot read',
        );
        closeWith(screenCloses.inputUnreadable);
      });
      // The host closes with why (desktop stopped, sandbox stopped or deleted): the page hears it.
      upstream.on('close', (code, reason) => {
        if (relayedCodes.has(code)) closeWith({ code, reason: reason.toString() });
        else closeWith(screenCloses.hostLost);
      });
      upstream.on('error', (error) => {
        this.logger.warn({ err: error, sandboxId: sandbox.id }, 'screen: connection to the host failed');
        closeWith(screenCloses.hostLost);
      });
      const { token } = caller;
      const left = token ? token.expiresAt.getTime() - this.ctx.now().getTime() : undefined;
      const expiry =
        left === undefined ? undefined : setTimeout(() => closeWith(screenCloses.tokenExpired), left);
      // A screen already open stops too once its token's key is revoked or its person leaves the
      // org (spec, "Authentication" 6), saying which: the directory is in memory, so looking each
      // second is cheap.
      const minterWatch = token
        ? setInterval(() => {
            const gone = this.ctx.access.minterGone(token);
            if (gone) closeWith(minterGoneCloses[gone]);
          }, minterCheckMs)
        : undefined;
      ws.once('close', () => {
        clearTimeout(expiry);
        clearInterval(minterWatch);
        if (upstream.readyState === WebSocket.OPEN) upstream.close(1000, 'page closed');
        else upstream.terminate();
        this.open.delete(ws);
      });
    });
  }

  closeAll(): void {
    for (const ws of this.open) ws.close(screenCloses.shuttingDown.code, screenCloses.shuttingDown.reason);
    this.server.close();
  }
}

/** Host to page: each frame as it came; the host's stream pauses while the page is behind. */
function toPage(upstream: WebSocket, ws: WebSocket): void {
  upstream.on('message', (data: Buffer, isBinary) => {
    if (!isBinary) return;
    ws.send(data, { binary: true }, () => {
      if (upstream.isPaused && ws.bufferedAmount < highWaterBytes / 4) upstream.resume();
    });
    if (ws.bufferedAmount > highWaterBytes) upstream.pause();
  });
}

/**
 * Page to host: binary frames, through the RFB filter for a `view` token, which drops keyboard
 * and pointer input (sandbox-runtime/desktop/rfb-filter.ts). A `control` token or a key passes
 * everything as it is: the filter knows only the standard messages, and a page may send others.
 */
function fromPage(
  ws: WebSocket,
  upstream: WebSocket,
  viewOnly: boolean,
  refused: (error: Error) => void,
): void {
  const send = (chunk: Buffer) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(chunk, { binary: true });
  };
  const filter = viewOnly ? rfbFilterStream('view') : undefined;
  if (filter) {
    filter.on('data', send);
    filter.on('error', refused);
  }
  ws.on('message', (data, isBinary) => {
    if (!isBinary) return;
    if (filter) {
      if (!filter.destroyed) filter.write(data as Buffer);
    } else send(data as Buffer);
  });
}

/** `GET /sandboxes/:id/screen`: the WebSocket; a plain GET is told to upgrade (426). */
export const screenRoutes: FastifyPluginAsyncZod<{ ctx: SandboxContext; hub: ScreenHub }> = async (
  app,
  { ctx, hub },
) => {
  app.route({
    method: sandboxRoutes.screen.method,
    url: sandboxRoutes.screen.path,
    onRequest: guard(app, 'screen'),
    schema: {
      tags: ['desktop'],
      summary: 'The live screen: a WebSocket carrying VNC (RFB) in binary frames',
      params: idParams,
      querystring: z.object({
        token: z.string().optional().describe('a sandbox token with `view` or `control`'),
      }),
      response: {
        101: z.null().describe('Switching Protocols: the WebSocket is open.'),
        ...sandboxErrorResponses('screen'),
      },
    },
    handler: async (request, reply) => {
      const pending = pendingUpgrade(request);
      if (!pending) throw upgradeRequired();
      const { caller, loaded } = await ctx.access.forRequest(request, 'screen');
      const sandbox = requireDesktop(loaded.sandbox);
      const viewOnly = caller.token !== undefined && !screenInputAllowed(caller.token);
      const upstream = await ctx.hosts.openScreen(sandbox.host, sandbox.id);
      reply.hijack();
      hub.serve(request, pending, { caller, sandbox, upstream, viewOnly });
    },
  });
};

const upgradeRequired = () =>
  new ApiError(
    'upgrade_required',
    426,
    'Open this URL as a WebSocket (ws:// or wss://, with ?token=<sandbox token>): it carries the desktop over VNC.',
  );
