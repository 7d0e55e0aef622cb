import { isIP } from 'node:net';
import { z } from 'zod';

// How long our HTTP servers wait on a client (ORRERY_HTTP_*): for the request's headers, for a
// body that stops arriving, for the whole request, and for the next request on an idle keep-alive
// connection; and which proxies in front of them they believe about a client's address
// (ORRERY_TRUST_PROXY). Read by platform/config.ts; platform/server-options.ts hands them to
// Node's HTTP server through Fastify, and api/slow-bodies.ts watches the bodies.
//
// A slow or silent client holds a connection and its memory while it waits, so the waits for
// what a client sends are short (issue 49: 200 connections sending a byte every few seconds were
// none cut within 60 s), and only what it may rightly take long over is long:
// - headers: 10 s from the request's first byte. Any client sends them in one write;
// - a body that stops: 10 s without a byte (a client on a slow link still sends every second);
// - the whole request: 300 s, Node's default, which Fastify turns off. It must fit the largest
//   body the spec accepts, a 64 MB sandbox file (002, Limits), on a slow uplink (about 2 Mbit/s);
//   a 4 MiB OTLP body needs far less. It covers receiving the request only: a handler may then
//   take as long as it needs (an exec waits up to 600 s), and an upgraded connection (the live
//   screen) is no longer an HTTP request at all;
// - keep-alive: 72 s, Fastify's default, just above the OpenTelemetry Collector's 60 s and the
//   60 s idle timeout of common load balancers, so the proxy in front closes an idle connection
//   first (a server closing first races the proxy's next request on it, which the caller sees as
//   a 502).

export interface HttpTimeouts {
  /** From a request's first byte until its headers are all in (Node's headersTimeout). */
  headersMs: number;
  /** How long a request's body may send nothing before it is cut (api/slow-bodies.ts). */
  bodyIdleMs: number;
  /** From a request's first byte until its body is all in (Node's requestTimeout). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this long without a request (keepAliveTimeout). */
  keepAliveMs: number;
}

/**
 * Whose word a server takes for a client's address (X-Forwarded-For), as Fastify's `trustProxy`:
 * nobody's (false: the connection's own address, as without a proxy), every hop's (true), or the
 * hops at these addresses and CIDRs (and proxy-addr's `loopback`, `linklocal`, `uniquelocal`).
 * Behind a load balancer the connection's address is the balancer's, so every client would share
 * one per-address login limit; trusting anyone but the balancer would let a client name any
 * address it likes, and so dodge that limit.
 */
export type TrustProxy = boolean | string[];

const milliseconds = z.coerce.number().int().min(100, 'give at least 100 (milliseconds)');

const proxyAddressNames = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR (address/prefix length) or one of proxy-addr's names. */
function isProxyAddress(entry: string): boolean {
  if (proxyAddressNames.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function trustProxy(value: string | undefined, context: z.RefinementCtx): TrustProxy {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '' || trimmed === 'false') return false;
  if (trimmed === 'true') return true;
  // Fastify 5 ignores a hop count (it cannot tell the balancer from a client that reaches the API
  // directly), so one given here would quietly trust nobody: refused, with what to give instead.
  if (/^\d+$/.test(trimmed)) {
    context.addIssue({
      code: 'custom',
      message:
        "a hop count is not trusted (any client could claim the hops): give the balancer's addresses or CIDRs",
    });
    return false;
  }
  const entries = trimmed.split(',').map((entry) => entry.trim());
  const wrong = entries.filter((entry) => !isProxyAddress(entry));
  if (wrong.length > 0)
    context.addIssue({
      code: 'custom',
      message: `not an address or CIDR: ${wrong.map((entry) => JSON.stringify(entry)).join(', ')}; use true, false, or addresses and CIDRs separated by commas`,
    });
  return entries;
}

export const httpEnvironment = {
  ORRERY_HTTP_HEADERS_TIMEOUT_MS: milliseconds.default(10_000),
  ORRERY_HTTP_BODY_IDLE_TIMEOUT_MS: milliseconds.default(10_000),
  ORRERY_HTTP_REQUEST_TIMEOUT_MS: milliseconds.default(300_000),
  ORRERY_HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds.default(72_000),
  ORRERY_TRUST_PROXY: z.string().optional().transform(trustProxy),
};

type HttpEnvironment = { [K in keyof typeof httpEnvironment]: z.output<(typeof httpEnvironment)[K]> };

/** An HTTP server's settings: its timeouts, and whom it believes about a client's address. */
export interface HttpSettings extends HttpTimeouts {
  trustProxy: TrustProxy;
}

/** Node refuses headers that may take longer than the whole request; so do we, by name. */
export function checkHttpEnvironment(env: HttpEnvironment, context: z.RefinementCtx): void {
  if (env.ORRERY_HTTP_HEADERS_TIMEOUT_MS > env.ORRERY_HTTP_REQUEST_TIMEOUT_MS)
    context.addIssue({
      code: 'custom',
      path: ['ORRERY_HTTP_HEADERS_TIMEOUT_MS'],
      message: `at most ORRERY_HTTP_REQUEST_TIMEOUT_MS (${env.ORRERY_HTTP_REQUEST_TIMEOUT_MS}): the headers are part of the request`,
    });
}

export function httpSettings(env: HttpEnvironment): HttpSettings {
  return {
    headersMs: env.ORRERY_HTTP_HEADERS_TIMEOUT_MS,
    bodyIdleMs: env.ORRERY_HTTP_BODY_IDLE_TIMEOUT_MS,
    requestMs: env.ORRERY_HTTP_REQUEST_TIMEOUT_MS,
    keepAliveMs: env.ORRERY_HTTP_KEEP_ALIVE_TIMEOUT_MS,
    trustProxy: env.ORRERY_TRUST_PROXY,
  };
}
