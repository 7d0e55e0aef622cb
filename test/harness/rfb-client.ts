import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import { createRfbFilter, type RfbMode } from '../../sandbox-runtime/desktop/rfb-filter.ts';

// A minimal RFB 3.8 client for the tests (RFC 6143): version, security None, ClientInit (shared),
// ServerInit, raw encoding; pointer, keys, clipboard, and framebuffer updates read pixel by pixel.
// Two ways to the server:
// - `RfbClient.overVnc`: the sandbox's x11vnc stream, every byte to the server through the live
//   screen's filter in a mode, as the API's screen proxy sends them;
// - `openScreen`: the API's screen WebSocket, as a browser VNC library speaks it, the API filtering.

export interface ServerInit {
  width: number;
  height: number;
  bitsPerPixel: number;
  bigEndian: boolean;
  shifts: { red: number; green: number; blue: number };
  name: string;
}

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
  encoding: number;
  pixels: Buffer;
}

type Filter = ReturnType<typeof createRfbFilter>;

export class RfbClient {
  private buffered = Buffer.alloc(0);
  private endedBy: Error | undefined;
  private waiting: (() => void) | undefined;
  init: ServerInit | undefined;

  protected constructor(
    private readonly write: (bytes: Buffer) => void,
    private readonly end: () => void,
    private readonly filter?: Filter,
  ) {}

  /** Over a stream to the VNC server (`desktop.connectVnc`), sending through the filter in `mode`. */
  static overVnc(stream: Duplex, mode: RfbMode): RfbClient {
    const client = new RfbClient(
      (bytes) => stream.write(bytes),
      () => stream.destroy(),
      createRfbFilter(mode),
    );
    stream.on('data', (chunk: Buffer) => client.received(chunk));
    stream.on('close', () => client.serverClosed('the VNC stream closed'));
    return client;
  }

  protected received(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    this.waiting?.();
  }

  protected serverClosed(why: string): void {
    this.endedBy = new Error(why);
    this.waiting?.();
  }

  /** Exactly `bytes` bytes, once they have come; fails when the server closes first. */
  read(bytes: number, timeoutMs = 10_000): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new Error(`the VNC server sent ${this.buffered.length} of ${bytes} bytes`));
      }, timeoutMs);
      this.waiting = () => {
        if (this.buffered.length >= bytes) {
          const out = this.buffered.subarray(0, bytes);
          this.buffered = this.buffered.subarray(bytes);
          resolve(out);
        } else if (this.endedBy) {
          reject(new Error(`${this.endedBy.message} after ${this.buffered.length} of ${bytes} bytes`));
        } else {
          return;
        }
        clearTimeout(timer);
        this.waiting = undefined;
      };
      this.waiting();
    });
  }

  /** Sends what the filter (if any) lets through; answers how many bytes that was. */
  send(bytes: Buffer): number {
    if (!this.filter) {
      this.write(bytes);
      return bytes.length;
    }
    const { forward, error } = this.filter.push(bytes);
    if (error !== undefined) throw new Error(error);
    for (const part of forward) this.write(part);
    return forward.reduce((sum, part) => sum + part.length, 0);
  }

  async handshake(): Promise<ServerInit> {
    const version = (await this.read(12)).toString('latin1');
    if (version !== 'RFB 003.008\n') throw new Error(`server speaks ${JSON.stringify(version)}`);
    this.send(Buffer.from(version, 'latin1'));
    const count = (await this.read(1))[0] ?? 0;
    const types = [...(await this.read(count))];
    if (!types.includes(1)) throw new Error(`no None security among ${types.join(', ')}`);
    this.send(Buffer.from([1]));
    const result = (await this.read(4)).readUInt32BE(0);
    if (result !== 0) throw new Error(`security result ${result}`);
    this.send(Buffer.from([1])); // ClientInit: shared
    const head = await this.read(24);
    const name = (await this.read(head.readUInt32BE(20))).toString('utf8');
    this.init = {
      width: head.readUInt16BE(0),
      height: head.readUInt16BE(2),
      bitsPerPixel: head[4] ?? 0,
      bigEndian: head[6] !== 0,
      shifts: { red: head[14] ?? 0, green: head[15] ?? 0, blue: head[16] ?? 0 },
      name,
    };
    // Raw encoding only, so every rectangle is plain pixels.
    this.send(Buffer.from([2, 0, 0, 1, 0, 0, 0, 0]));
    return this.init;
  }

  requestUpdate(x: number, y: number, width: number, height: number): number {
    const message = Buffer.alloc(10);
    message.writeUInt8(3, 0);
    message.writeUInt8(0, 1); // not incremental: the whole area
    for (const [i, value] of [x, y, width, height].entries()) message.writeUInt16BE(value, 2 + i * 2);
    return this.send(message);
  }

  /** Reads server messages until a FramebufferUpdate, and answers its rectangles. */
  async readUpdate(): Promise<Rectangle[]> {
    const bytesPerPixel = (this.init?.bitsPerPixel ?? 32) / 8;
    for (;;) {
      const type = (await this.read(1))[0];
      if (type === 2) continue; // Bell
      if (type === 3) {
        const head = await this.read(7); // ServerCutText
        await this.read(head.readUInt32BE(3));
        continue;
      }
      if (type !== 0) throw new Error(`unexpected server message ${type}`);
      const count = (await this.read(3)).readUInt16BE(1);
      const rectangles: Rectangle[] = [];
      for (let i = 0; i < count; i++) {
        const head = await this.read(12);
        const rect = {
          x: head.readUInt16BE(0),
          y: head.readUInt16BE(2),
          width: head.readUInt16BE(4),
          height: head.readUInt16BE(6),
          encoding: head.readInt32BE(8),
        };
        const pixels =
          rect.encoding === 0 ? await this.read(rect.width * rect.height * bytesPerPixel) : Buffer.alloc(0);
        rectangles.push({ ...rect, pixels });
      }
      return rectangles;
    }
  }

  /** The colour of pixel `i` of a raw rectangle, by the server's pixel format (true colour). */
  rgb(rect: Rectangle, i: number): [number, number, number] {
    const init = this.init;
    if (init?.bitsPerPixel !== 32) throw new Error('expected 32 bits per pixel');
    const value = init.bigEndian ? rect.pixels.readUInt32BE(i * 4) : rect.pixels.readUInt32LE(i * 4);
    const { red, green, blue } = init.shifts;
    return [(value >> red) & 0xff, (value >> green) & 0xff, (value >> blue) & 0xff];
  }

  /**
   * The colour at (x, y) as the server sends it: asks for that pixel and reads updates until a
   * rectangle covers it (a server may send other changed areas, the cursor's, first). The answer
   * also shows the server has read every message this connection sent before the request.
   */
  async pixel(x: number, y: number): Promise<[number, number, number]> {
    this.requestUpdate(x, y, 1, 1);
    for (let updates = 0; updates < 20; updates++) {
      for (const rect of await this.readUpdate()) {
        const inside = x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;
        if (inside && rect.encoding === 0) return this.rgb(rect, (y - rect.y) * rect.width + (x - rect.x));
      }
    }
    throw new Error(`no update covered (${x}, ${y})`);
  }

  /** PointerEvent (RFC 6143, 7.5.5): `buttons` pressed (a mask; 0 for none), at x, y. */
  pointer(x: number, y: number, buttons = 0): number {
    const message = Buffer.alloc(6);
    message.writeUInt8(5, 0);
    message.writeUInt8(buttons, 1);
    message.writeUInt16BE(x, 2);
    message.writeUInt16BE(y, 4);
    return this.send(message);
  }

  key(keysym: number, down: boolean): number {
    const message = Buffer.alloc(8);
    message.writeUInt8(4, 0);
    message.writeUInt8(down ? 1 : 0, 1);
    message.writeUInt32BE(keysym, 4);
    return this.send(message);
  }

  cutText(text: string): number {
    const bytes = Buffer.from(text, 'latin1');
    const head = Buffer.alloc(8);
    head.writeUInt8(6, 0);
    head.writeUInt32BE(bytes.length, 4);
    return this.send(Buffer.concat([head, bytes]));
  }

  close(): void {
    this.end();
  }
}

/** The API's live screen (`/api/sandboxes/:id/screen`) as a client holds it: RFB over a WebSocket. */
export class ScreenClient extends RfbClient {
  /** How the server closed the connection. */
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    super(
      (bytes) => ws.send(bytes),
      () => ws.close(1000),
    );
    ws.on('message', (data: Buffer) => this.received(data));
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => {
        this.serverClosed(`the screen closed (${code})`);
        resolve({ code, reason: reason.toString() });
      }),
    );
  }
}

/** Opens the screen at `url` and completes the handshake (ServerInit in `init`). */
export async function openScreen(url: string, headers: Record<string, string> = {}): Promise<ScreenClient> {
  const ws = new WebSocket(url, { headers });
  const screen = new ScreenClient(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  await screen.handshake();
  return screen;
}
