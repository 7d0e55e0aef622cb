import { connect, type Socket } from 'node:net';
import { Reader, Writer } from './codec.ts';

// One TCP connection to a broker: requests framed with their size and a v1 header, answers
// matched by correlation id. TCP_NODELAY, as the Java client sets it.

export class ConnectionError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'ConnectionError';
  }
}

interface Pending {
  resolve: (reader: Reader) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class BrokerConnection {
  private socket: Socket | undefined;
  private connecting: Promise<Socket> | undefined;
  private correlationId = 0;
  private readonly pending = new Map<number, Pending>();
  private received: Buffer = Buffer.alloc(0);

  constructor(
    readonly host: string,
    readonly port: number,
    private readonly clientId: string,
    private readonly requestTimeoutMs: number,
  ) {}

  /** Sends one request; resolves with a reader past the response header. */
  async request(apiKey: number, apiVersion: number, body: Buffer): Promise<Reader> {
    if (this.socket?.destroyed) this.socket = undefined;
    const socket = this.socket ?? (await this.open());
    this.correlationId = (this.correlationId + 1) & 0x7fffffff;
    const correlationId = this.correlationId;
    const frame = new Writer(body.length + 64);
    frame.int32(0).int16(apiKey).int16(apiVersion).int32(correlationId).string(this.clientId).raw(body);
    frame.patchInt32(0, frame.size - 4);
    return new Promise<Reader>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.fail(
            new ConnectionError(
              `no answer from ${this.host}:${this.port} within ${this.requestTimeoutMs} ms`,
            ),
          ),
        this.requestTimeoutMs,
      );
      this.pending.set(correlationId, { resolve, reject, timer });
      socket.write(frame.bytesWritten());
    });
  }

  close(): void {
    this.socket?.end();
    this.socket = undefined;
  }

  private open(): Promise<Socket> {
    this.connecting ??= new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: this.host, port: this.port, noDelay: true });
      socket.setKeepAlive(true, 60_000);
      // A connection attempt that hangs (a dropped SYN) must fail too, or the send behind it waits forever.
      const timer = setTimeout(
        () => socket.destroy(new Error(`no connection within ${this.requestTimeoutMs} ms`)),
        this.requestTimeoutMs,
      );
      const refused = (error: Error) => {
        clearTimeout(timer);
        this.connecting = undefined;
        reject(
          new ConnectionError(`cannot connect to ${this.host}:${this.port}: ${error.message}`, {
            cause: error,
          }),
        );
      };
      socket.once('error', refused);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('error', refused);
        // A socket already replaced by a newer one has nothing left to fail.
        const drop = (error: Error) => {
          if (this.socket === socket) this.fail(error);
        };
        socket.on('error', (error) => drop(new ConnectionError(error.message, { cause: error })));
        socket.on('close', () =>
          drop(new ConnectionError(`${this.host}:${this.port} closed the connection`)),
        );
        socket.on('data', (chunk: Buffer) => this.receive(chunk));
        this.socket = socket;
        this.connecting = undefined;
        resolve(socket);
      });
    });
    return this.connecting;
  }

  private receive(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    while (this.received.length >= 4) {
      const size = this.received.readInt32BE(0);
      if (this.received.length < 4 + size) return;
      const response = this.received.subarray(4, 4 + size);
      this.received = this.received.subarray(4 + size);
      const correlationId = response.readInt32BE(0);
      const waiting = this.pending.get(correlationId);
      if (!waiting) continue;
      this.pending.delete(correlationId);
      clearTimeout(waiting.timer);
      waiting.resolve(new Reader(response, 4));
    }
  }

  /** Drops the connection: every request in flight fails, the next one connects again. */
  private fail(error: Error): void {
    this.socket?.destroy();
    this.socket = undefined;
    this.received = Buffer.alloc(0);
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    this.pending.clear();
  }
}
