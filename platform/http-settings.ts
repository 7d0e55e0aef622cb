import { z } from 'zod';

// How long our HTTP servers wait on a client (ORRERY_HTTP_*): for the request's headers, for the
// whole request, and for the next request on an idle keep-alive connection. Read by
// platform/config.ts; platform/server-options.ts hands them to Node's HTTP server through Fastify.
//
// The defaults are what a user of the OpenTelemetry Collector's OTLP/HTTP receiver (confighttp's
// NewDefaultServerConfig: ReadHeaderTimeout 1 min, IdleTimeout 1 min, no ReadTimeout) or of a
// Node service such as Langfuse (Node's own: headers 60 s, request 300 s) would expect:
// - headers: 60 s, the Collector's ReadHeaderTimeout and Node's default;
// - the whole request: 300 s, Node's default, which Fastify turns off. It must fit the largest
//   body the spec accepts, a 64 MB sandbox file (002, Limits), on a slow uplink (about 2 Mbit/s);
//   a 4 MiB OTLP body needs far less. It covers receiving the request only: a handler may then
//   take as long as it needs (an exec waits up to 600 s), and an upgraded connection (the live
//   screen) is no longer an HTTP request at all;
// - keep-alive: 72 s, Fastify's default, just above the Collector's 60 s and the 60 s idle
//   timeout of common load balancers, so the proxy in front closes an idle connection first
//   (a server closing first races the proxy's next request on it, which the caller sees as a 502).

export interface HttpTimeouts {
  /** From a request's first byte until its headers are all in (Node's headersTimeout). */
  headersMs: number;
  /** From a request's first byte until its body is all in (Node's requestTimeout). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this long without a request (keepAliveTimeout). */
  keepAliveMs: number;
}

const milliseconds = z.coerce.number().int().min(100, 'give at least 100 (milliseconds)');

export const httpEnvironment = {
  ORRERY_HTTP_HEADERS_TIMEOUT_MS: milliseconds.default(60_000),
  ORRERY_HTTP_REQUEST_TIMEOUT_MS: milliseconds.default(300_000),
  ORRERY_HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds.default(72_000),
};

type HttpEnvironment = { [K in keyof typeof httpEnvironment]: number };

/** Node refuses headers that may take longer than the whole request; so do we, by name. */
export function checkHttpEnvironment(env: HttpEnvironment, context: z.RefinementCtx): void {
  if (env.ORRERY_HTTP_HEADERS_TIMEOUT_MS > env.ORRERY_HTTP_REQUEST_TIMEOUT_MS)
    context.addIssue({
      code: 'custom',
      path: ['ORRERY_HTTP_HEADERS_TIMEOUT_MS'],
      message: `at most ORRERY_HTTP_REQUEST_TIMEOUT_MS (${env.ORRERY_HTTP_REQUEST_TIMEOUT_MS}): the headers are part of the request`,
    });
}

export function httpSettings(env: HttpEnvironment): HttpTimeouts {
  return {
    headersMs: env.ORRERY_HTTP_HEADERS_TIMEOUT_MS,
    requestMs: env.ORRERY_HTTP_REQUEST_TIMEOUT_MS,
    keepAliveMs: env.ORRERY_HTTP_KEEP_ALIVE_TIMEOUT_MS,
  };
}
