import { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { checkingIntervalMs } from '../platform/server-options.ts';
import { ApiError } from './errors.ts';
import { sendInSurfaceShape } from './http-errors.ts';

// A request body that stops arriving (issue 49): Node bounds only the whole request (its request
// timeout), so a client promising more than it sends held a connection for minutes. Every
// request still receiving its body is looked at on an interval; one whose connection has read no
// byte for `idleMs`, while this side is ready to read, is answered 408 in its surface's shape and
// its connection closed. The bytes are counted on the socket, not the stream, so no body's
// reading changes; a body that keeps coming, however slowly, is bounded by the request timeout.

interface Receiving {
  request: FastifyRequest;
  reply: FastifyReply;
  socket: Socket;
  bytesRead: number;
  lastByteAt: number;
}

export const slowBodiesPlugin = fp<{ idleMs: number }>(async (app, { idleMs }) => {
  const receiving = new Set<Receiving>();

  function cut(entry: Receiving): void {
    receiving.delete(entry);
    const { request, reply, socket } = entry;
    const seconds = Math.round(idleMs / 100) / 10;
    request.log.info({ url: request.url }, `a request body stopped arriving for ${seconds} s: answered 408`);
    if (reply.sent) {
      socket.destroy();
      return;
    }
    reply.raw.once('finish', () => socket.destroy());
    reply.header('connection', 'close');
    sendInSurfaceShape(
      new ApiError(
        'request_timeout',
        408,
        `The request body stopped arriving (nothing for ${seconds} s): send it again on a new connection.`,
      ),
      request,
      reply,
    );
  }

  const sweep = setInterval(() => {
    const now = performance.now();
    for (const entry of receiving) {
      if (entry.request.raw.complete || entry.socket.destroyed) receiving.delete(entry);
      else if (entry.socket.bytesRead !== entry.bytesRead || entry.socket.isPaused()) {
        // New bytes; or none read because this side holds the body back (a full stream pauses
        // its socket), which is no fault of the client's.
        entry.bytesRead = entry.socket.bytesRead;
        entry.lastByteAt = now;
      } else if (now - entry.lastByteAt >= idleMs) cut(entry);
    }
  }, checkingIntervalMs(idleMs));
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  app.addHook('onRequest', async (request, reply) => {
    const { socket } = request.raw;
    // A request without a body is complete once its headers are in; one injected (Fastify's
    // `inject`, in process) comes on no connection to watch.
    if (request.raw.complete || !(socket instanceof Socket)) return;
    const entry = { request, reply, socket, bytesRead: socket.bytesRead, lastByteAt: performance.now() };
    receiving.add(entry);
    request.raw.once('end', () => receiving.delete(entry));
    reply.raw.once('finish', () => receiving.delete(entry));
  });
});
