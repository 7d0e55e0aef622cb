import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { unauthorized } from '../../../api/errors.ts';
import { encodeExportResponse, encodeStatus, otlpContentTypes } from '../../../api/otlp/encode.ts';
import {
  grpcCodes,
  OtlpError,
  type OtlpErrorCode,
  otlpErrorFormat,
  otlpErrorMessage,
  otlpErrors,
} from '../../../api/otlp/errors.ts';
import { responseType, statusType } from '../../harness/otlp-fixtures.ts';

const decodeResponse = (bytes: Buffer) =>
  responseType.toObject(responseType.decode(bytes), { longs: String });
const decodeStatus = (bytes: Buffer) => statusType.toObject(statusType.decode(bytes));

describe('encodeExportResponse (Response table, 200 rows)', () => {
  it('is an empty message when every span was stored', () => {
    expect(encodeExportResponse('protobuf', undefined).length).toBe(0);
    expect(decodeResponse(encodeExportResponse('protobuf', undefined))).toEqual({});
    expect(encodeExportResponse('json', undefined).toString()).toBe('{}');
  });

  const partial = { rejectedSpans: 3, errorMessage: '3 spans had a trace or span id that is missing' };

  it('carries partial_success in protobuf', () => {
    expect(decodeResponse(encodeExportResponse('protobuf', partial))).toEqual({
      partialSuccess: { rejectedSpans: '3', errorMessage: partial.errorMessage },
    });
  });

  it('carries partialSuccess in JSON, rejectedSpans an int64 written as a decimal string', () => {
    const json = encodeExportResponse('json', partial).toString();
    expect(JSON.parse(json)).toEqual({
      partialSuccess: { rejectedSpans: '3', errorMessage: partial.errorMessage },
    });
    // The proto3 JSON reader of protobufjs reads it back, as the Collector's reader would.
    expect(responseType.toObject(responseType.fromObject(JSON.parse(json)), { longs: Number })).toEqual({
      partialSuccess: partial,
    });
  });

  it('keeps a large count exact', () => {
    const big = { rejectedSpans: 2 ** 40 + 1, errorMessage: '' };
    expect(decodeResponse(encodeExportResponse('protobuf', big)).partialSuccess.rejectedSpans).toBe(
      String(2 ** 40 + 1),
    );
  });
});

describe('encodeStatus (google.rpc.Status)', () => {
  const status = { code: grpcCodes.INVALID_ARGUMENT, message: 'invalid_otlp: send …' };
  it('encodes protobuf that protobufjs decodes back', () => {
    expect(decodeStatus(encodeStatus('protobuf', status))).toEqual(status);
  });
  it('encodes JSON with code and message', () => {
    expect(JSON.parse(encodeStatus('json', status).toString())).toEqual(status);
  });
});

describe('the Response table as data', () => {
  // Status, code, exporter should retry: the spec's Response table.
  it.each<[OtlpErrorCode, number, boolean, number]>([
    ['invalid_otlp', 400, false, grpcCodes.INVALID_ARGUMENT],
    ['unauthorized', 401, false, grpcCodes.UNAUTHENTICATED],
    ['tracing_not_enabled', 403, false, grpcCodes.PERMISSION_DENIED],
    ['insufficient_scope', 403, false, grpcCodes.PERMISSION_DENIED],
    ['payload_too_large', 413, false, grpcCodes.RESOURCE_EXHAUSTED],
    ['unsupported_media_type', 415, false, grpcCodes.UNIMPLEMENTED],
    ['tracing_unavailable', 503, true, grpcCodes.UNAVAILABLE],
  ])('%s is HTTP %i, retry %s, gRPC code %i', (code, status, retry, grpcCode) => {
    expect(otlpErrors[code]).toMatchObject({ httpStatus: status, retry, grpcCode });
    expect(new OtlpError(code)).toMatchObject({
      code,
      status,
      message: `${code}: ${otlpErrors[code].remedy}`,
    });
  });

  it('has a row for every error code of the spec, and no other', () => {
    expect(Object.keys(otlpErrors).sort()).toEqual(
      [
        'invalid_otlp',
        'unauthorized',
        'tracing_not_enabled',
        'insufficient_scope',
        'payload_too_large',
        'unsupported_media_type',
        'tracing_unavailable',
      ].sort(),
    );
  });

  // The remedies the spec names ("Authentication", "Errors").
  it.each<[OtlpErrorCode, RegExp[]]>([
    ['payload_too_large', [/smaller export batch/, /gzip/]],
    [
      'insufficient_scope',
      [/log in through the command-line tool/, /add the scope to the key under Settings/],
    ],
    ['tracing_not_enabled', [/request access on the Tracing page of the dashboard/]],
    ['unauthorized', [/Authorization: Bearer <API_KEY>/, /valid API key/]],
    ['unsupported_media_type', [/application\/x-protobuf/, /application\/json/, /gzip/]],
    ['tracing_unavailable', [/Retry-After/]],
  ])('the remedy for %s says what to do', (code, phrases) => {
    for (const phrase of phrases) expect(otlpErrorMessage(code)).toMatch(phrase);
  });

  it('puts what was wrong after the remedy, cut short when long', () => {
    expect(otlpErrorMessage('invalid_otlp', 'spans[0].traceId: bad')).toMatch(
      /^invalid_otlp: send .* \(spans\[0\]\.traceId: bad\)$/,
    );
    expect(otlpErrorMessage('invalid_otlp', 'x'.repeat(10_000)).length).toBeLessThan(700);
  });
});

// The error format reads only the request's Content-Type header.
const requestIn = (contentType: string | undefined) =>
  ({
    headers: contentType === undefined ? {} : { 'content-type': contentType },
  }) as unknown as FastifyRequest;

describe('otlpErrorFormat: the error answer in the request encoding', () => {
  it.each(['protobuf', 'json'] as const)('is a google.rpc.Status in %s', (format) => {
    const error = new OtlpError('payload_too_large', 'body over 4194304 bytes as sent');
    const request = requestIn(otlpContentTypes[format]);
    expect(error.status).toBe(413);
    expect(otlpErrorFormat.contentType(request)).toBe(otlpContentTypes[format]);
    const bytes = otlpErrorFormat.body(error, request) as Buffer;
    const body = format === 'json' ? JSON.parse(bytes.toString()) : decodeStatus(bytes);
    expect(body).toEqual({ code: grpcCodes.RESOURCE_EXHAUSTED, message: error.message });
    expect(body.message).toMatch(/^payload_too_large: /);
  });

  it('answers JSON when the request had no encoding we know', () => {
    const request = requestIn('text/plain');
    expect(otlpErrorFormat.contentType(request)).toBe('application/json');
    const body = JSON.parse(
      otlpErrorFormat.body(new OtlpError('unsupported_media_type'), request).toString(),
    );
    expect(body.code).toBe(grpcCodes.UNIMPLEMENTED);
  });

  it('gives errors of the shared auth hook the code and remedy of the table', () => {
    const body = JSON.parse(otlpErrorFormat.body(unauthorized(), requestIn('application/json')).toString());
    expect(body).toEqual({ code: grpcCodes.UNAUTHENTICATED, message: otlpErrorMessage('unauthorized') });
  });

  it.each(Object.keys(otlpErrors) as OtlpErrorCode[])(
    '%s carries Retry-After only when retryable',
    (code) => {
      const { headers } = new OtlpError(code);
      if (otlpErrors[code].retry) expect(Number(headers['retry-after'])).toBeGreaterThan(0);
      else expect(headers['retry-after']).toBeUndefined();
    },
  );
});
