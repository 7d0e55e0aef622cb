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
import { screenInputAllowed } from '../../domain/sandboxes/tokens.ts';
import type { Logger } from '../../platform/logger.ts';
import { rfbFilterStream } from '../../sandbox-runtime/desktop/index.ts';
import { sandboxErrorResponses } from '../error-responses.ts';
import { ApiError } from '../errors.ts';
import { type Caller, guard } from './access.ts';
import type { Unusable } from './commands.ts';
import { idParams, type SandboxContext } from './context.ts';
import { desktopNotConfigured } from './errors.ts';

/** How often an open screen looks whether its token's minter is still active. */
const minterCheckMs = 1000;

// The live screen (spec, "Endpoints": `GET /sandboxes/:id/screen?token=<token>`, a WebSocket
// carrying VNC (RFB) in binary frames; "Embeddable screen"). Upgrades go through Fastify's own
// routing, as @fastify/websocket does it, so the screen route has the same auth hook, token
// checks and error bodies as every other route: a refusal is an ordinary HTTP answer (401, 403,
// 409) instead of the 101. Once upgraded, bytes are piped both ways; what the page sends passes
// the RFB filter, which drops keyboard and pointer input for a `view` token whatever the page's mode.
//
// A connection closes cleanly (1000) when the token expires, when the desktop or the sandbox
// stops, or when the sandbox is destroyed; with 1001 when the API shuts down. While open it
// counts as a use of the sandbox (the idle timeout), bounded by the token's lifetime.

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

/** Backpressure: pause the VNC stream while this much is waiting to reach the page. */
const highWaterBytes = 4 * 1024 * 1024;

export class ScreenHub {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private readonly open = new Map<string, Set<WebSocket>>();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly logger: Logger,
  ) {}

  /** Completes the upgrade and pipes `vnc` to the page until one of them ends. */
  serve(
    request: FastifyRequest,
    pending: PendingUpgrade,
    connection: { caller: Caller; sandbox: Sandbox; vnc: Duplex; viewOnly: boolean },
  ): void {
    const { caller, sandbox, vnc } = connection;
    pending.upgraded = true;
    let served = false;
    // A handshake the WebSocket server refuses never calls back: the VNC connection goes too.
    pending.socket.once('close', () => {
      if (!served) vnc.destroy();
    });
    this.server.handleUpgrade(request.raw, pending.socket, pending.head, (ws) => {
      served = true;
      this.track(sandbox.id, ws);
      const closeWith = (code: number, reason: string) => {
        if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)
          ws.close(code, reason);
      };
      toPage(vnc, ws);
      fromPage(ws, vnc, connection.viewOnly, (error) => {
        this.logger.info(
          { err: error, sandboxId: sandbox.id },
          'screen: page sent what the filter cannot read',
        );
        closeWith(1008, 'unsupported RFB message');
      });
      vnc.on('end', () => closeWith(1000, 'desktop stopped'));
      vnc.on('close', () => closeWith(1000, 'desktop stopped'));
      vnc.on('error', (error) => {
        this.logger.warn({ err: error, sandboxId: sandbox.id }, 'screen: VNC connection failed');
        closeWith(1011, 'desktop connection failed');
      });
      const { token } = caller;
      const left = token ? token.expiresAt.getTime() - this.ctx.now().getTime() : undefined;
      const expiry =
        left === undefined ? undefined : setTimeout(() => closeWith(1000, 'token expired'), left);
      // A screen already open stops too once its token's key is revoked or its person leaves the
      // org (spec, "Authentication" 6): the directory is in memory, so looking each second is cheap.
      const minterWatch = token
        ? setInterval(() => {
            if (!this.ctx.access.minterActive(token)) closeWith(1008, 'token revoked');
          }, minterCheckMs)
        : undefined;
      const closed = new Promise<void>((resolve) =>
        ws.once('close', () => {
          clearTimeout(expiry);
          clearInterval(minterWatch);
          vnc.destroy();
          this.untrack(sandbox.id, ws);
          resolve();
        }),
      );
      this.ctx.commands
        .use(sandbox, () => closed)
        .catch((error: unknown) =>
          this.logger.warn({ err: error, sandboxId: sandbox.id }, 'screen: use not recorded'),
        );
    });
  }

  /** Ends every screen of a sandbox that stopped being usable. */
  close(sandboxId: string, why: Unusable, code = 1000): void {
    for (const ws of this.open.get(sandboxId) ?? []) ws.close(code, why);
  }

  closeAll(): void {
    for (const sandboxId of this.open.keys()) this.close(sandboxId, 'stopped', 1001);
    this.server.close();
  }

  private track(sandboxId: string, ws: WebSocket): void {
    const set = this.open.get(sandboxId) ?? new Set();
    set.add(ws);
    this.open.set(sandboxId, set);
  }

  private untrack(sandboxId: string, ws: WebSocket): void {
    const set = this.open.get(sandboxId);
    set?.delete(ws);
    if (set?.size === 0) this.open.delete(sandboxId);
  }
}

/** Server to page: each chunk a binary frame; the VNC stream pauses while the page is behind. */
function toPage(vnc: Duplex, ws: WebSocket): void {
  vnc.on('data', (chunk: Buffer) => {
    ws.send(chunk, { binary: true }, () => {
      if (vnc.isPaused() && ws.bufferedAmount < highWaterBytes / 4) vnc.resume();
    });
    if (ws.bufferedAmount > highWaterBytes) vnc.pause();
  });
}

/**
 * Page to server: binary frames, through the RFB filter for a `view` token, which drops keyboard
 * and pointer input (sandbox-runtime/desktop/rfb-filter.ts). A `control` token or a key passes
 * everything as it is: the filter knows only the standard messages, and a page may send others.
 */
function fromPage(ws: WebSocket, vnc: Duplex, viewOnly: boolean, refused: (error: Error) => void): void {
  const filter = viewOnly ? rfbFilterStream('view') : undefined;
  if (filter) {
    filter.on('data', (chunk: Buffer) => vnc.write(chunk));
    filter.on('error', refused);
  }
  const sink = filter ?? vnc;
  ws.on('message', (data, isBinary) => {
    if (isBinary && !sink.destroyed) sink.write(data as Buffer);
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
      if (!ctx.desktop) throw desktopNotConfigured();
      const viewOnly = caller.token !== undefined && !screenInputAllowed(caller.token);
      const vnc = await ctx.desktop.connectVnc(sandbox.id);
      reply.hijack();
      hub.serve(request, pending, { caller, sandbox, vnc, viewOnly });
    },
  });
};

const upgradeRequired = () =>
  new ApiError(
    'upgrade_required',
    426,
    'Open this URL as a WebSocket (ws:// or wss://, with ?token=<sandbox token>): it carries the desktop over VNC.',
  );
