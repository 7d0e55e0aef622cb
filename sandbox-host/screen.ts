import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { requireDesktop } from '../domain/sandboxes/decide.ts';
import type { Sandbox } from '../domain/sandboxes/sandbox.ts';
import { type ScreenClose, screenCloses } from '../domain/sandboxes/screen-closes.ts';
import { carriesHostSecret } from '../platform/host-secret.ts';
import { hostPaths } from '../schemas/sandbox-hosts.ts';
import type { Unusable } from './commands.ts';
import { type HostContext, heldSandbox } from './context.ts';
import { DesktopNotConfigured, refusalOf } from './errors.ts';

// The host's half of the live screen (spec 002, `GET /sandboxes/:id/screen`): a WebSocket from an
// API replica carrying the desktop's VNC (RFB) bytes as binary frames, both ways, as they are. The
// page-facing half is the API's (api/sandboxes/screen.ts): the caller's token, the RFB filter of a
// `view` token, the token's expiry. What only the holder of the sandbox knows stays here: the
// desktop's VNC server, the sandbox stopping or being destroyed (the socket closes cleanly, 1000,
// with the reason the API passes on to the page), and the open screen counting as a use.

/** How a screen closes when its sandbox stops being usable (domain/sandboxes/screen-closes.ts). */
const unusableCloses: Record<Unusable, ScreenClose> = {
  stopped: screenCloses.sandboxStopped,
  deleted: screenCloses.sandboxDeleted,
  lost: screenCloses.sandboxLost,
  restarted: screenCloses.sandboxRestarted,
  'desktop stopped': screenCloses.desktopStopped,
};

/** Backpressure: pause the VNC stream while this much is waiting to reach the API. */
const highWaterBytes = 4 * 1024 * 1024;

const screenPath = new RegExp(`^${hostPaths.screen.replace(':id', '([^/?]+)')}(?:\\?.*)?$`);

export class HostScreens {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private readonly open = new Map<string, Set<WebSocket>>();

  constructor(
    private readonly ctx: HostContext,
    private readonly secret: string,
  ) {}

  /** Serves upgrades to the screen path on the host's HTTP server. */
  attach(http: Server): void {
    http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(request, socket, head).catch((error: unknown) => {
        this.ctx.logger.warn({ err: error }, 'sandbox host: screen upgrade failed');
        refuse(socket, 500, {
          code: 'internal_error',
          message: 'The sandbox host could not open the screen.',
        });
      });
    });
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    if (!carriesHostSecret(request.headers.authorization, this.secret)) {
      this.ctx.logger.warn(
        { remote: request.socket.remoteAddress },
        'sandbox host: refused a screen without the host secret',
      );
      return refuse(socket, 401, { code: 'unauthorized', message: 'Send the host secret.' });
    }
    const id = screenPath.exec(request.url ?? '')?.[1];
    if (!id) return refuse(socket, 404, { code: 'not_found', message: 'No such route on the sandbox host.' });
    let sandbox: Sandbox;
    let vnc: Duplex;
    try {
      sandbox = requireDesktop(await heldSandbox(this.ctx, decodeURIComponent(id)));
      if (!this.ctx.desktop) throw new DesktopNotConfigured();
      vnc = await this.ctx.desktop.connectVnc(sandbox.id);
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      return refuse(socket, refusal.status, { code: refusal.code, message: refusal.message });
    }
    let served = false;
    socket.once('close', () => {
      if (!served) vnc.destroy();
    });
    this.server.handleUpgrade(request, socket, head, (ws) => {
      served = true;
      this.serve(sandbox, ws, vnc);
    });
  }

  private serve(sandbox: Sandbox, ws: WebSocket, vnc: Duplex): void {
    this.track(sandbox.id, ws);
    const closeWith = ({ code, reason }: ScreenClose) => {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(code, reason);
    };
    vnc.on('data', (chunk: Buffer) => {
      ws.send(chunk, { binary: true }, () => {
        if (vnc.isPaused() && ws.bufferedAmount < highWaterBytes / 4) vnc.resume();
      });
      if (ws.bufferedAmount > highWaterBytes) vnc.pause();
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary && !vnc.destroyed) vnc.write(data as Buffer);
    });
    vnc.on('end', () => closeWith(screenCloses.desktopStopped));
    vnc.on('close', () => closeWith(screenCloses.desktopStopped));
    vnc.on('error', (error) => {
      this.ctx.logger.warn({ err: error, sandboxId: sandbox.id }, 'screen: VNC connection failed');
      closeWith(screenCloses.desktopFailed);
    });
    const closed = new Promise<void>((resolve) =>
      ws.once('close', () => {
        vnc.destroy();
        this.untrack(sandbox.id, ws);
        resolve();
      }),
    );
    this.ctx.commands
      .use(sandbox, () => closed)
      .catch((error: unknown) =>
        this.ctx.logger.warn({ err: error, sandboxId: sandbox.id }, 'screen: use not recorded'),
      );
  }

  /** Ends every screen of a sandbox that stopped being usable. */
  close(sandboxId: string, why: Unusable): void {
    this.closeEach(sandboxId, unusableCloses[why]);
  }

  closeAll(): void {
    for (const sandboxId of this.open.keys()) this.closeEach(sandboxId, screenCloses.shuttingDown);
    this.server.close();
  }

  private closeEach(sandboxId: string, { code, reason }: ScreenClose): void {
    for (const ws of this.open.get(sandboxId) ?? []) ws.close(code, reason);
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

/** An upgrade refused with an ordinary HTTP answer in the error shape, which the API passes on. */
function refuse(socket: Duplex, status: number, error: { code: string; message: string }): void {
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Refused'}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
