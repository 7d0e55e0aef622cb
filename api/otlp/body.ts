// Reading an OTLP request body under the Limits table's "Request body" row (domain/tracing/limits.ts),
// counted while the bytes arrive so that neither an oversized body nor a gzip bomb is ever held or
// inflated past its cap.
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { limits } from '../../domain/tracing/limits.ts';
import { OtlpError } from './errors.ts';

/** The caps the endpoint reads a body under: the Limits table's "Request body" row. */
export const requestBodyLimits = {
  maxSentBytes: limits.requestBytesSent,
  maxInflatedBytes: limits.requestBytesUncompressed,
} as const;

export interface BodyOptions {
  contentEncoding: string | undefined;
  maxSentBytes: number;
  maxInflatedBytes: number;
}

type ContentCoding = 'gzip' | 'identity';

// Request table, Content-Encoding: gzip or absent. `identity` means absent (RFC 9110 §8.4.1) and
// `x-gzip` means gzip (RFC 9110 §8.4.1.3).
const contentCodings: Record<string, ContentCoding> = {
  '': 'identity',
  identity: 'identity',
  gzip: 'gzip',
  'x-gzip': 'gzip',
};

/** The body's coding from a Content-Encoding header, or `unsupported_media_type`. */
export function parseContentEncoding(header: string | undefined): ContentCoding {
  const coding = contentCodings[(header ?? '').trim().toLowerCase()];
  if (coding === undefined) throw new OtlpError('unsupported_media_type', 'unsupported Content-Encoding');
  return coding;
}

/**
 * The body, inflated when gzip. Throws `payload_too_large` as soon as a cap is passed, having
 * destroyed the gunzip stream and stopped reading; `invalid_otlp` for a broken gzip stream. The
 * source itself is left unread, not destroyed: destroying an HTTP request destroys its socket, and
 * the exporter would see a reset (and retry) instead of the 413 it must not retry. The caller
 * answers and closes the connection (`Connection: close`).
 */
export async function readOtlpBody(
  body: AsyncIterable<Uint8Array | string>,
  options: BodyOptions,
): Promise<Buffer> {
  const coding = parseContentEncoding(options.contentEncoding);
  const sent = countSent(body, options.maxSentBytes);
  return coding === 'gzip'
    ? inflate(sent, options.maxInflatedBytes)
    : collect(sent, options.maxInflatedBytes);
}

function tooLarge(which: 'as sent' | 'uncompressed', max: number): OtlpError {
  return new OtlpError('payload_too_large', `body over ${max} bytes ${which}`);
}

/**
 * Yields the source's chunks while counting them. Iterates by hand rather than with `for await`,
 * which would destroy the source (and an HTTP request's socket) when stopped early.
 */
async function* countSent(body: AsyncIterable<Uint8Array | string>, max: number): AsyncGenerator<Buffer> {
  const chunks = body[Symbol.asyncIterator]();
  let total = 0;
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) return;
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : toBuffer(next.value);
    total += chunk.length;
    if (total > max) throw tooLarge('as sent', max);
    yield chunk;
  }
}

async function collect(chunks: AsyncIterable<Buffer>, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.length;
    if (total > max) throw tooLarge('uncompressed', max);
    parts.push(chunk);
  }
  return Buffer.concat(parts, total);
}

async function inflate(compressed: AsyncIterable<Buffer>, maxInflated: number): Promise<Buffer> {
  let body: Buffer | undefined;
  try {
    // pipeline destroys every stage (the gunzip stream above all) when any stage throws.
    await pipeline(compressed, createGunzip(), async (inflated: AsyncIterable<Buffer>) => {
      body = await collect(inflated, maxInflated);
    });
  } catch (error) {
    throw isZlibError(error) ? new OtlpError('invalid_otlp', `broken gzip stream: ${error.message}`) : error;
  }
  return body!;
}

/** zlib reports a corrupt or cut stream with a `Z_…` code (Z_DATA_ERROR, Z_BUF_ERROR). */
function isZlibError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}

function toBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
