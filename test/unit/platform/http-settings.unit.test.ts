import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../platform/config.ts';
import { checkingIntervalMs } from '../../../platform/server-options.ts';

// ORRERY_HTTP_*: the HTTP servers' timeouts (platform/http-settings.ts), and how often Node is
// asked to check them (platform/server-options.ts).

describe('ORRERY_HTTP_*', () => {
  it('defaults to 60 s for headers, 300 s for the whole request, 72 s for an idle keep-alive', () => {
    expect(parseConfig({}).http).toEqual({ headersMs: 60_000, requestMs: 300_000, keepAliveMs: 72_000 });
  });

  it('takes each in milliseconds', () => {
    const http = parseConfig({
      ORRERY_HTTP_HEADERS_TIMEOUT_MS: '1000',
      ORRERY_HTTP_REQUEST_TIMEOUT_MS: '2000',
      ORRERY_HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
    }).http;
    expect(http).toEqual({ headersMs: 1000, requestMs: 2000, keepAliveMs: 500 });
  });

  it('refuses headers that may take longer than the whole request, naming the variable', () => {
    expect(() =>
      parseConfig({ ORRERY_HTTP_HEADERS_TIMEOUT_MS: '3000', ORRERY_HTTP_REQUEST_TIMEOUT_MS: '2000' }),
    ).toThrow(/ORRERY_HTTP_HEADERS_TIMEOUT_MS: at most ORRERY_HTTP_REQUEST_TIMEOUT_MS \(2000\)/);
  });

  it('refuses 0 (no timeout) and values under 100 ms', () => {
    for (const value of ['0', '99', '-1', 'soon'])
      expect(() => parseConfig({ ORRERY_HTTP_REQUEST_TIMEOUT_MS: value })).toThrow(
        /ORRERY_HTTP_REQUEST_TIMEOUT_MS/,
      );
  });
});

describe('checkingIntervalMs', () => {
  it('is a tenth of the shorter timeout, at most a second', () => {
    expect(checkingIntervalMs({ headersMs: 60_000, requestMs: 300_000, keepAliveMs: 72_000 })).toBe(1_000);
    expect(checkingIntervalMs({ headersMs: 1_000, requestMs: 2_000, keepAliveMs: 1_000 })).toBe(100);
    expect(checkingIntervalMs({ headersMs: 150, requestMs: 150, keepAliveMs: 100 })).toBe(15);
  });
});
