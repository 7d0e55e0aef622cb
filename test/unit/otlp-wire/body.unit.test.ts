import { PassThrough } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseContentEncoding, readOtlpBody, requestBodyLimits } from '../../../api/otlp/body.ts';
import { parseContentType } from '../../../api/otlp/content-type.ts';
import { OtlpError } from '../../../api/otlp/errors.ts';

const MiB = 1024 * 1024;
const limits = { ...requestBodyLimits, contentEncoding: undefined };

/** The body in chunks, counting how many bytes the reader pulled. */
function source(body: Buffer, chunkSize = 64 * 1024) {
  const counter = { pulled: 0 };
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let at = 0; at < body.length; at += chunkSize) {
      const chunk = body.subarray(at, at + chunkSize);
      counter.pulled += chunk.length;
      yield chunk;
    }
  }
  return { chunks: chunks(), counter };
}

async function refusal(promise: Promise<unknown>): Promise<OtlpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof OtlpError) return error;
  throw new Error(`expected an OtlpError, got ${String(error)}`);
}

/**
 * A gzip member that inflates to 1 GiB of zeros: 1,024 copies of one deflate block of 1 MiB of
 * zeros (a full flush makes each copy independent), about 1 MiB in all, deflate's ratio being
 * about 1,000:1. The CRC in the trailer is left at 0: a reader stopped at the cap never gets there.
 */
function gzipBomb(): Buffer {
  const block = zlib.deflateRawSync(Buffer.alloc(MiB), { finishFlush: zlib.constants.Z_FULL_FLUSH });
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(1024 * MiB, 4);
  return Buffer.concat([
    header,
    ...Array<Buffer>(1024).fill(block),
    zlib.deflateRawSync(Buffer.alloc(0)),
    trailer,
  ]);
}

describe('parseContentType (Request table: Content-Type)', () => {
  it.each([
    ['application/x-protobuf', 'protobuf'],
    ['application/json', 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['APPLICATION/JSON;charset=UTF-8', 'json'],
    ['Application/X-Protobuf', 'protobuf'],
    ['  application/x-protobuf  ; foo=bar', 'protobuf'],
    ['application/protobuf', undefined],
    ['application/jsonl', undefined],
    ['text/plain', undefined],
    ['application/grpc', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j is %s', (header, format) => {
    expect(parseContentType(header)).toBe(format);
  });
});

describe('parseContentEncoding (Request table: Content-Encoding gzip or absent)', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['identity', 'identity'],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    [' gzip ', 'gzip'],
    ['x-gzip', 'gzip'],
  ])('%j is %s', (header, coding) => {
    expect(parseContentEncoding(header)).toBe(coding);
  });

  it.each(['br', 'deflate', 'zstd', 'compress', 'gzip, br', 'gzip, gzip'])(
    '%j is unsupported_media_type, before the body is read',
    async (contentEncoding) => {
      const { chunks, counter } = source(Buffer.from('{}'));
      const error = await refusal(readOtlpBody(chunks, { ...limits, contentEncoding }));
      expect(error.code).toBe('unsupported_media_type');
      expect(error.status).toBe(415);
      expect(counter.pulled).toBe(0);
    },
  );
});

describe('readOtlpBody: the Limits table, Request body (4 MiB as sent, 16 MiB uncompressed)', () => {
  it.each([
    ['exactly 4 MiB', 4 * MiB, true],
    ['4 MiB + 1 byte', 4 * MiB + 1, false],
  ])('as sent without compression: %s', async (_name, size, accepted) => {
    const body = Buffer.alloc(size, 7);
    const read = readOtlpBody(source(body).chunks, limits);
    if (accepted) expect((await read).equals(body)).toBe(true);
    else expect((await refusal(read)).message).toMatch(/^payload_too_large: .*as sent/);
  });

  it.each([
    ['exactly 16 MiB', 16 * MiB, true],
    ['16 MiB + 1 byte', 16 * MiB + 1, false],
  ])('uncompressed with gzip: %s', async (_name, size, accepted) => {
    const body = Buffer.alloc(size, 7);
    const read = readOtlpBody(source(zlib.gzipSync(body)).chunks, { ...limits, contentEncoding: 'gzip' });
    if (accepted) expect((await read).equals(body)).toBe(true);
    else expect((await refusal(read)).message).toMatch(/^payload_too_large: .*uncompressed/);
  });

  it('counts the gzip body as sent, before inflating: over 4 MiB compressed is refused', async () => {
    const stored = zlib.gzipSync(Buffer.alloc(4 * MiB), { level: 0 }); // no compression: larger than 4 MiB
    const error = await refusal(readOtlpBody(source(stored).chunks, { ...limits, contentEncoding: 'gzip' }));
    expect(error.code).toBe('payload_too_large');
    expect(error.status).toBe(413);
  });

  it('stops inflating a gzip bomb at the cap: quickly, with bounded memory', async () => {
    const bomb = gzipBomb();
    const { chunks } = source(bomb, 16 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    const error = await refusal(readOtlpBody(chunks, { ...limits, contentEncoding: 'gzip' }));
    const elapsed = performance.now() - started;
    expect(error.code).toBe('payload_too_large');
    expect(elapsed).toBeLessThan(1000);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(128 * MiB);
  });

  it('leaves the source stream undestroyed, so that the 413 can still be answered on it', async () => {
    const request = new PassThrough();
    request.end(Buffer.alloc(4 * MiB + 1));
    const error = await refusal(readOtlpBody(request, limits));
    expect(error.code).toBe('payload_too_large');
    expect(request.destroyed).toBe(false);
  });
});

describe('readOtlpBody: bodies within the limits', () => {
  it('joins chunks, strings counted in UTF-8 bytes', async () => {
    async function* chunks() {
      yield '{"a":"é';
      yield Buffer.from('"}');
      yield new Uint8Array([0x20]);
    }
    expect((await readOtlpBody(chunks(), limits)).toString('utf8')).toBe('{"a":"é"} ');
  });

  it('counts strings in bytes against the cap', async () => {
    async function* chunks() {
      yield 'é'.repeat(3); // 6 bytes
    }
    const error = await refusal(readOtlpBody(chunks(), { ...limits, maxSentBytes: 5 }));
    expect(error.code).toBe('payload_too_large');
  });

  it('inflates gzip sent in small pieces', async () => {
    const body = Buffer.from('{"resourceSpans":[]}'.repeat(1000));
    const read = await readOtlpBody(source(zlib.gzipSync(body), 7).chunks, {
      ...limits,
      contentEncoding: 'gzip',
    });
    expect(read.equals(body)).toBe(true);
  });

  it('reads an empty body as empty', async () => {
    expect((await readOtlpBody(source(Buffer.alloc(0)).chunks, limits)).length).toBe(0);
  });

  it('passes a failure of the source through unchanged (an aborted request is not invalid_otlp)', async () => {
    const aborted = new Error('aborted');
    async function* chunks(): AsyncGenerator<Buffer> {
      yield Buffer.from('{');
      throw aborted;
    }
    await expect(readOtlpBody(chunks(), limits)).rejects.toBe(aborted);
    await expect(readOtlpBody(chunks(), { ...limits, contentEncoding: 'gzip' })).rejects.toBe(aborted);
  });
});

describe('readOtlpBody: a broken gzip stream is invalid_otlp', () => {
  const gzipped = zlib.gzipSync(Buffer.from('{"resourceSpans":[]}'));
  it.each([
    ['not gzip at all', Buffer.from('{"resourceSpans":[]}')],
    ['cut in half', gzipped.subarray(0, gzipped.length >> 1)],
    ['a corrupt deflate stream', Buffer.concat([gzipped.subarray(0, 10), Buffer.alloc(20, 0xff)])],
    ['a wrong checksum', Buffer.concat([gzipped.subarray(0, -8), Buffer.alloc(8)])],
    ['empty', Buffer.alloc(0)],
  ])('%s', async (_name, body) => {
    const error = await refusal(readOtlpBody(source(body).chunks, { ...limits, contentEncoding: 'gzip' }));
    expect(error.code).toBe('invalid_otlp');
    expect(error.message).toContain('broken gzip stream');
  });
});
