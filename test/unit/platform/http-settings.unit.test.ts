import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../platform/config.ts';
import { logger } from '../../../platform/logger.ts';
import { checkingIntervalMs, serverOptions } from '../../../platform/server-options.ts';

// ORRERY_HTTP_*: the HTTP servers' timeouts (platform/http-settings.ts), and how often Node is
// asked to check them (platform/server-options.ts). ORRERY_TRUST_PROXY: whose X-Forwarded-For
// makes `request.ip`, which the per-address login limit counts by.

describe('ORRERY_HTTP_*', () => {
  it('defaults to 10 s for headers and for a body that stops, 300 s for the whole request, 72 s for an idle keep-alive', () => {
    expect(parseConfig({}).http).toMatchObject({
      headersMs: 10_000,
      bodyIdleMs: 10_000,
      requestMs: 300_000,
      keepAliveMs: 72_000,
    });
  });

  it('takes each in milliseconds', () => {
    const http = parseConfig({
      ORRERY_HTTP_HEADERS_TIMEOUT_MS: '1000',
      ORRERY_HTTP_BODY_IDLE_TIMEOUT_MS: '1500',
      ORRERY_HTTP_REQUEST_TIMEOUT_MS: '2000',
      ORRERY_HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
    }).http;
    expect(http).toMatchObject({ headersMs: 1000, bodyIdleMs: 1500, requestMs: 2000, keepAliveMs: 500 });
  });

  it('refuses headers that may take longer than the whole request, naming the variable', () => {
    expect(() =>
      parseConfig({ ORRERY_HTTP_HEADERS_TIMEOUT_MS: '3000', ORRERY_HTTP_REQUEST_TIMEOUT_MS: '2000' }),
    ).toThrow(/ORRERY_HTTP_HEADERS_TIMEOUT_MS: at most ORRERY_HTTP_REQUEST_TIMEOUT_MS \(2000\)/);
  });

  it('refuses 0 (no timeout) and values under 100 ms', () => {
    for (const value of ['0', '99', '-1', 'soon']) {
      expect(() => parseConfig({ ORRERY_HTTP_REQUEST_TIMEOUT_MS: value })).toThrow(
        /ORRERY_HTTP_REQUEST_TIMEOUT_MS/,
      );
      expect(() => parseConfig({ ORRERY_HTTP_BODY_IDLE_TIMEOUT_MS: value })).toThrow(
        /ORRERY_HTTP_BODY_IDLE_TIMEOUT_MS/,
      );
    }
  });
});

/** `request.ip` on a server made from `ORRERY_TRUST_PROXY`, for a connection from `peer`. */
async function clientAddress(trustProxy: string | undefined, peer: string, forwardedFor?: string) {
  const environment = trustProxy === undefined ? {} : { ORRERY_TRUST_PROXY: trustProxy };
  const server = Fastify(serverOptions(logger, parseConfig(environment).http));
  server.get('/ip', async (request) => request.ip);
  try {
    const answer = await server.inject({
      url: '/ip',
      remoteAddress: peer,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    });
    return answer.body;
  } finally {
    await server.close();
  }
}

describe('ORRERY_TRUST_PROXY', () => {
  const balancer = '10.0.4.7';
  const client = '203.0.113.9';

  it('unset or false: trusts nobody, so a forged X-Forwarded-For is ignored', async () => {
    expect(parseConfig({}).http.trustProxy).toBe(false);
    expect(await clientAddress(undefined, client, '198.51.100.1')).toBe(client);
    expect(await clientAddress('false', client, '198.51.100.1')).toBe(client);
  });

  it("the balancer's CIDR: the client it forwards for, and nothing a client in front of it claims", async () => {
    expect(parseConfig({ ORRERY_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).http.trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
    ]);
    expect(await clientAddress('10.0.0.0/8', balancer, client)).toBe(client);
    // The client sent its own X-Forwarded-For; the balancer added the address it saw.
    expect(await clientAddress('10.0.0.0/8', balancer, `198.51.100.1, ${client}`)).toBe(client);
    // A client reaching the API directly, outside the CIDR, is not believed.
    expect(await clientAddress('10.0.0.0/8', client, '198.51.100.1')).toBe(client);
  });

  it('true: trusts every hop, so the first address forwarded for is the client', async () => {
    expect(await clientAddress('true', balancer, `${client}, 10.0.4.8`)).toBe(client);
  });

  it('refuses a hop count and what is not an address or CIDR, naming the variable', () => {
    expect(() => parseConfig({ ORRERY_TRUST_PROXY: '1' })).toThrow(/ORRERY_TRUST_PROXY: a hop count/);
    for (const value of ['yes', '10.0.0.0/33', '10.0.0.1,balancer', '::1/129', '10.0.0.0/8/1'])
      expect(() => parseConfig({ ORRERY_TRUST_PROXY: value })).toThrow(/ORRERY_TRUST_PROXY: not an address/);
    expect(parseConfig({ ORRERY_TRUST_PROXY: 'loopback,fd00::/8' }).http.trustProxy).toEqual([
      'loopback',
      'fd00::/8',
    ]);
  });
});

describe('checkingIntervalMs', () => {
  it('is a tenth of the timeout, at most a second', () => {
    expect(checkingIntervalMs(60_000)).toBe(1_000);
    expect(checkingIntervalMs(1_000)).toBe(100);
    expect(checkingIntervalMs(150)).toBe(15);
  });
});
