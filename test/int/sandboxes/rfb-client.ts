import WebSocket from 'ws';

// A minimal RFB 3.8 client over the screen's WebSocket (RFC 6143, 7.1 to 7.3), as a browser VNC
// library would speak it: version, security None, ClientInit (shared), ServerInit. Enough to see
// the screen's size and to send pointer events.

export interface Screen {
  ws: WebSocket;
  serverInit: { width: number; height: number; name: string };
  send(bytes: Buffer): void;
  close(): void;
  /** How the server closed the connection. */
  closed: Promise<{ code: number; reason: string }>;
}

/** Reads exact byte counts from the frames as they come. */
function byteReader(ws: WebSocket) {
  let buffered = Buffer.alloc(0);
  let waiting:
    | { count: number; resolve: (bytes: Buffer) => void; reject: (error: Error) => void }
    | undefined;
  const settle = () => {
    if (waiting && buffered.length >= waiting.count) {
      const { count, resolve } = waiting;
      waiting = undefined;
      const bytes = buffered.subarray(0, count);
      buffered = buffered.subarray(count);
      resolve(bytes);
    }
  };
  ws.on('message', (data: Buffer) => {
    buffered = Buffer.concat([buffered, data]);
    settle();
  });
  ws.on('close', (code) => waiting?.reject(new Error(`the screen closed (${code}) during the handshake`)));
  return {
    read: (count: number) =>
      new Promise<Buffer>((resolve, reject) => {
        waiting = { count, resolve, reject };
        settle();
      }),
  };
}

export async function openScreen(url: string, headers: Record<string, string> = {}): Promise<Screen> {
  const ws = new WebSocket(url, { headers });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const reader = byteReader(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const version = (await reader.read(12)).toString('latin1');
  if (!/^RFB 003\.00[38]\n$/.test(version)) throw new Error(`not an RFB server: ${JSON.stringify(version)}`);
  ws.send(Buffer.from('RFB 003.008\n'));
  const [count = 0] = await reader.read(1);
  const types = [...(await reader.read(count))];
  if (!types.includes(1)) throw new Error(`the server offers no security None: ${types.join(',')}`);
  ws.send(Buffer.from([1]));
  const result = (await reader.read(4)).readUInt32BE(0);
  if (result !== 0) throw new Error(`security failed: ${result}`);
  ws.send(Buffer.from([1]));
  const init = await reader.read(24);
  const name = (await reader.read(init.readUInt32BE(20))).toString('utf8');
  return {
    ws,
    serverInit: { width: init.readUInt16BE(0), height: init.readUInt16BE(2), name },
    send: (bytes) => ws.send(bytes),
    close: () => ws.close(1000),
    closed,
  };
}

/** PointerEvent (RFC 6143, 7.5.5): no button pressed, at x, y. */
export function pointerEvent(x: number, y: number): Buffer {
  const bytes = Buffer.alloc(6);
  bytes[0] = 5;
  bytes.writeUInt16BE(x, 2);
  bytes.writeUInt16BE(y, 4);
  return bytes;
}
