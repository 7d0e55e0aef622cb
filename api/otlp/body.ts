// Reading an OTLP request body under the Limits table's "Request body" row (domain/tracing/limits.ts):
// the bytes sent are counted while they arrive and a gzip body is inflated no further than its cap,
// so neither an oversized body nor a gzip bomb is ever held or inflated past it.
import { gunzipSync } from 'node:zlib';
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
 * The body, inflated when gzip. Throws `payload_too_large` as soon as a cap is passed (the bytes
 * sent, as they arrive; the inflated bytes, as zlib writes them), having stopped reading or
 * inflating; `invalid_otlp` for a broken gzip stream. The source itself is left unread, not
 * destroyed: destroying an HTTP request destroys its socket, and the exporter would see a reset
 * (and retry) instead of the 413 it must not retry. The caller answers and closes the connection
 * (`Connection: close`).
 */
export async function readOtlpBody(
  body: AsyncIterable<Uint8Array | string>,
  options: BodyOptions,
): Promise<Buffer> {
  const coding = parseContentEncoding(options.contentEncoding);
  const sent = await readSent(body, options.maxSentBytes);
  if (coding === 'gzip') return inflate(sent, options.maxInflatedBytes);
  if (sent.length > options.maxInflatedBytes) throw tooLarge('uncompressed', options.maxInflatedBytes);
  return sent;
}

function tooLarge(which: 'as sent' | 'uncompressed', max: number): OtlpError {
  return new OtlpError('payload_too_large', `body over ${max} bytes ${which}`);
}

/**
 * The source's bytes, counted as they arrive: throws `payload_too_large` as soon as they pass `max`.
 * Iterates by hand rather than with `for await`, which would destroy the source (and an HTTP
 * request's socket) when stopped early.
 */
async function readSent(body: AsyncIterable<Uint8Array | string>, max: number): Promise<Buffer> {
  const chunks = body[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let total = 0;
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) return Buffer.concat(parts, total);
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : toBuffer(next.value);
    total += chunk.length;
    if (total > max) throw tooLarge('as sent', max);
    parts.push(chunk);
  }
}

/** zlib's output buffers: a typical export (a few hundred KB inflated) fills one to three. */
const inflateChunkBytes = 128 * 1024;

/**
 * A gzip body, inflated in one synchronous call once all of it has arrived (the sent cap bounds
 * it); zlib stops as soon as its output passes the cap, so a bomb is inflated no further. Streamed
 * through a Gunzip instead, each 16 KiB of output was a trip to the thread pool and back: on
 * bench/llm-spans' export of 512 spans (16 KiB gzip, 364 KB inflated) that cost 2.6-3.2 ms of the
 * API's CPU, against 0.64-0.71 ms this way.
 */
function inflate(compressed: Buffer, maxInflated: number): Buffer {
  try {
    return gunzipSync(compressed, { maxOutputLength: maxInflated, chunkSize: inflateChunkBytes });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_BUFFER_TOO_LARGE')
      throw tooLarge('uncompressed', maxInflated);
    throw isZlibError(error) ? new OtlpError('invalid_otlp', `broken gzip stream: ${error.message}`) : error;
  }
}

/** zlib reports a corrupt or cut stream with a `Z_…` code (Z_DATA_ERROR, Z_BUF_ERROR). */
function isZlibError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}

function toBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
