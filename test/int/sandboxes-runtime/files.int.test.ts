import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileLimitBytes } from '../../../sandbox-runtime/files.ts';
import { eventually } from '../../harness/eventually.ts';
import { givenRuntime, prepareTimeoutMs, refusal, sandboxId, text } from './given.ts';

// files.read and files.write: one file, up to 64 MiB each, by path inside the sandbox.

const { runtime, cleanup } = givenRuntime();
const id = sandboxId('files');

beforeAll(async () => {
  await runtime.prepare();
  await runtime.create(id);
}, prepareTimeoutMs);
afterAll(cleanup);

describe('files', () => {
  it('round-trips binary content, creating the parent folders', async () => {
    const bytes = new Uint8Array([0, 255, 10, 13, 0xc3, 0x28, ...randomBytes(4096)]);
    expect(await runtime.writeFile(id, '/srv/deep/new/blob.bin', bytes)).toEqual({
      path: '/srv/deep/new/blob.bin',
      size_bytes: bytes.length,
    });
    expect(Buffer.from(await runtime.readFile(id, '/srv/deep/new/blob.bin')).equals(Buffer.from(bytes))).toBe(
      true,
    );
    const inside = await runtime.exec(
      id,
      'sha256sum /srv/deep/new/blob.bin; stat -c %U:%s /srv/deep/new/blob.bin',
    );
    const digest = createHash('sha256').update(bytes).digest('hex');
    expect(inside.result.stdout).toBe(`${digest}  /srv/deep/new/blob.bin\nroot:${bytes.length}\n`);
  });

  it('reads what commands wrote, and writes over a file', async () => {
    await runtime.exec(id, 'printf "from exec" > /root/note');
    expect(text(await runtime.readFile(id, '/root/note'))).toBe('from exec');
    await runtime.writeFile(id, '/root/note', 'replaced');
    expect((await runtime.exec(id, 'cat /root/note')).result.stdout).toBe('replaced');
  });

  it('writes and reads exactly 64 MiB, and refuses one byte more', async () => {
    const big = new Uint8Array(fileLimitBytes);
    big.fill(7);
    big[fileLimitBytes - 1] = 42;
    expect(await runtime.writeFile(id, '/root/big', big)).toEqual({
      path: '/root/big',
      size_bytes: 67_108_864,
    });
    const back = await runtime.readFile(id, '/root/big');
    expect(back.length).toBe(fileLimitBytes);
    expect(back[fileLimitBytes - 1]).toBe(42);

    const tooBig = await refusal(runtime.writeFile(id, '/root/bigger', new Uint8Array(fileLimitBytes + 1)));
    expect(tooBig).toMatchObject({ code: 'invalid_request', param: 'contents' });
    await runtime.exec(id, 'cp /root/big /root/bigger && printf x >> /root/bigger');
    const tooBigToRead = await refusal(runtime.readFile(id, '/root/bigger'));
    expect(tooBigToRead).toMatchObject({ code: 'invalid_request', param: 'path' });
    expect(tooBigToRead.message).toContain('larger than 64 MiB');
  }, 30_000);

  it('refuses paths that climb out with ..', async () => {
    for (const path of ['/..', '/../etc/passwd', '/root/../../work', 'relative/path']) {
      expect(await refusal(runtime.readFile(id, path))).toMatchObject({
        code: 'invalid_request',
        param: 'path',
      });
      expect(await refusal(runtime.writeFile(id, path, 'x'))).toMatchObject({
        code: 'invalid_request',
        param: 'path',
      });
    }
    // `..` that stays inside is only a path.
    expect(text(await runtime.readFile(id, '/root/../root/note'))).toBe('replaced');
  });

  it('follows symlinks only within the sandbox, never to the host', async () => {
    const hostFile = join(process.cwd(), 'package.json');
    const hostText = readFileSync(hostFile, 'utf8');
    await runtime.exec(
      id,
      `ln -s ${hostFile} /root/absolute-link; ln -s ../../../../../..${hostFile} /root/relative-link`,
    );
    for (const link of ['/root/absolute-link', '/root/relative-link']) {
      expect(await refusal(runtime.readFile(id, link))).toMatchObject({
        code: 'invalid_request',
        param: 'path',
      });
    }
    // Writing through the link creates the sandbox's own file of that name; the host's is untouched.
    await runtime.exec(id, `mkdir -p ${process.cwd()}`);
    await runtime.writeFile(id, '/root/absolute-link', 'written inside');
    expect(readFileSync(hostFile, 'utf8')).toBe(hostText);
    expect((await runtime.exec(id, `cat ${hostFile}`)).result.stdout).toBe('written inside');
  });

  it('refuses a missing file, a folder, and an unknown sandbox', async () => {
    expect((await refusal(runtime.readFile(id, '/root/nothing-here'))).message).toContain(
      'No file at /root/nothing-here',
    );
    expect((await refusal(runtime.readFile(id, '/etc'))).message).toContain('not a regular file');
    expect((await refusal(runtime.writeFile(id, '/etc', 'x'))).message).toContain('not a regular file');
    expect((await refusal(runtime.writeFile(id, '/root/note/below', 'x'))).param).toBe('path');
    expect((await refusal(runtime.readFile('no-such-sandbox', '/etc/hostname'))).code).toBe('not_found');
  });
});

// Streamed files: the host passes a file through in pipe-sized pieces, never holding it whole.

const mib = 1024 * 1024;
const folder = '/root/streams';

/** `global.gc`, without restarting the test process under --expose-gc. */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Twice: array buffers are swept concurrently, and the second collection waits for the first's. */
function collectGarbage(): void {
  gc();
  gc();
}

/**
 * The bytes the host holds, sampled every 4 MiB of progress (and at 0) after a collection: pieces already
 * passed on are garbage, not held, and a collection tells the two apart. Buffers live outside
 * V8's heap, in `arrayBuffers`.
 */
function memoryProbe() {
  collectGarbage();
  const base = process.memoryUsage();
  let next = 0;
  const peak = { arrayBuffers: 0, rss: 0 };
  return {
    at(progress: number) {
      if (progress < next && progress > 0) return;
      next = progress + 4 * mib;
      collectGarbage();
      const now = process.memoryUsage();
      peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers - base.arrayBuffers);
      peak.rss = Math.max(peak.rss, now.rss - base.rss);
    },
    peak,
  };
}

/** `total` bytes made as they are asked for, each piece a new buffer; the digest once all went. */
function generated(total: number, onProgress: (sent: number) => void = () => {}) {
  const hash = createHash('sha256');
  let sent = 0;
  const source = new Readable({
    read() {
      onProgress(sent);
      if (sent === total) return void this.push(null);
      const piece = Buffer.alloc(Math.min(64 * 1024, total - sent), sent / (64 * 1024));
      sent += piece.length;
      if (sent === total) piece[piece.length - 1] = 42;
      hash.update(piece);
      this.push(piece);
    },
  });
  return { source, digest: () => hash.copy().digest('hex') };
}

const inside = async (command: string) => (await runtime.exec(id, command)).result.stdout;

/**
 * What the sandbox's `head` has read once it stopped reading (the same count twice in a row):
 * it waits on a full pipe. Fails if it ended instead, having sent the whole file.
 */
async function readerStalled(): Promise<number> {
  let last: number | undefined;
  return eventually(
    async () => {
      const line = await inside('pid=$(pgrep -x head) && sed -n "s/^rchar: //p" /proc/$pid/io');
      if (line === '') throw new Error('the reader ended: the host took the whole file');
      const read = Number(line);
      const stalled = read === last;
      last = read;
      return stalled ? read : undefined;
    },
    10_000,
    'the reader to wait on a full pipe',
  );
}
const leftovers = async () =>
  (await inside(`ls -A ${folder}`)).split('\n').filter((name) => name.includes('orrery'));

describe('streamed files', () => {
  beforeAll(async () => {
    await runtime.exec(id, `mkdir -p ${folder}`);
  });

  it('streams 64 MiB in and out while the host holds a small fraction of it', async () => {
    const writing = memoryProbe();
    const body = generated(fileLimitBytes, writing.at);
    const written = await runtime.writeFileFrom(id, `${folder}/big`, body.source, {
      declaredBytes: fileLimitBytes,
    });
    expect(written).toEqual({ path: `${folder}/big`, size_bytes: fileLimitBytes });
    expect(await inside(`sha256sum < ${folder}/big`)).toBe(`${body.digest()}  -\n`);

    const reading = memoryProbe();
    const opened = await runtime.openFile(id, `${folder}/big`);
    expect(opened.sizeBytes).toBe(fileLimitBytes);
    // A consumer that holds off: the sandbox's reader must stop on a full pipe, with the host
    // holding what the pipes hold, not go on until the host has the whole file.
    await once(opened.bytes, 'readable');
    const readBeforeStall = await readerStalled();
    expect(readBeforeStall).toBeLessThan(16 * mib);
    reading.at(0);
    const hash = createHash('sha256');
    let received = 0;
    for await (const chunk of opened.bytes) {
      hash.update(chunk as Buffer);
      received += (chunk as Buffer).length;
      reading.at(received);
    }
    expect(received).toBe(fileLimitBytes);
    expect(hash.digest('hex')).toBe(body.digest());

    // A pipe's worth per stage (the stream buffers, the socket's) is well under 1 MiB; 16 MiB
    // leaves room for the test's own allocations while a quarter of the file held would fail.
    console.info(
      `held while streaming 64 MiB: write ${(writing.peak.arrayBuffers / mib).toFixed(2)} MiB ` +
        `(rss +${(writing.peak.rss / mib).toFixed(1)}), read ${(reading.peak.arrayBuffers / mib).toFixed(2)} MiB ` +
        `(rss +${(reading.peak.rss / mib).toFixed(1)}); the reader stalled after ${readBeforeStall} bytes`,
    );
    expect(writing.peak.arrayBuffers).toBeLessThan(16 * mib);
    expect(reading.peak.arrayBuffers).toBeLessThan(16 * mib);
  }, 60_000);

  it('refuses one byte over 64 MiB, keeping the previous content and leaving no temporary file', async () => {
    await runtime.writeFile(id, `${folder}/kept`, 'before');
    const body = generated(fileLimitBytes + 1);
    const error = await refusal(runtime.writeFileFrom(id, `${folder}/kept`, body.source));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'contents' });
    expect(error.message).toBe('send at most 64 MiB (67,108,864 bytes) per file');
    expect(await inside(`cat ${folder}/kept`)).toBe('before');
    expect(await leftovers()).toEqual([]);
  });

  it('keeps the previous content when the source fails midway, and removes the temporary file', async () => {
    await runtime.writeFile(id, `${folder}/kept`, 'before');
    const gone = new Error('the client went away');
    let sent = 0;
    const source = new Readable({
      read() {
        if (sent === 8 * mib) return void this.destroy(gone);
        sent += mib;
        this.push(Buffer.alloc(mib, 1));
      },
    });
    await expect(runtime.writeFileFrom(id, `${folder}/kept`, source)).rejects.toBe(gone);
    expect(await inside(`cat ${folder}/kept`)).toBe('before');
    expect(await leftovers()).toEqual([]);
  });

  it('refuses a body longer or shorter than declared, keeping the previous content', async () => {
    await runtime.writeFile(id, `${folder}/kept`, 'before');
    const shorter = await refusal(
      runtime.writeFileFrom(id, `${folder}/kept`, Readable.from([Buffer.from('12345')]), {
        declaredBytes: 10,
      }),
    );
    expect(shorter).toMatchObject({ param: 'contents' });
    expect(shorter.message).toContain('ended after 5 of the 10 bytes it declared');
    const longer = await refusal(
      runtime.writeFileFrom(id, `${folder}/kept`, Readable.from([Buffer.alloc(20)]), { declaredBytes: 10 }),
    );
    expect(longer.message).toContain('longer than the 10 bytes it declared');
    const overLimit = await refusal(
      runtime.writeFileFrom(id, `${folder}/kept`, Readable.from([]), { declaredBytes: fileLimitBytes + 1 }),
    );
    expect(overLimit.message).toBe('send at most 64 MiB (67,108,864 bytes) per file');
    expect(await inside(`cat ${folder}/kept`)).toBe('before');
    expect(await leftovers()).toEqual([]);
  });

  it("keeps an existing file's owner and mode; a new file is made as a shell would make it", async () => {
    await runtime.exec(
      id,
      `printf old > ${folder}/owned && chown 1234:2345 ${folder}/owned && chmod 2751 ${folder}/owned`,
    );
    await runtime.writeFileFrom(id, `${folder}/owned`, Readable.from([Buffer.from('new')]));
    expect(await inside(`cat ${folder}/owned; echo; stat -c '%a %u:%g' ${folder}/owned`)).toBe(
      'new\n2751 1234:2345\n',
    );

    await runtime.writeFileFrom(id, `${folder}/fresh`, Readable.from([Buffer.from('x')]));
    await runtime.exec(id, `: > ${folder}/by-shell`);
    const modes = await inside(`stat -c '%a %U:%G' ${folder}/fresh ${folder}/by-shell`);
    const [fresh, byShell] = modes.trim().split('\n');
    expect(fresh).toBe(byShell);
  });

  it('writes through a link to a host-looking path inside the sandbox, keeping the link', async () => {
    const hostFile = join(process.cwd(), 'package.json');
    const hostText = readFileSync(hostFile, 'utf8');
    await runtime.exec(
      id,
      `mkdir -p ${process.cwd()} && ln -sfn ../../../../../..${hostFile} ${folder}/host-link`,
    );
    await runtime.writeFileFrom(id, `${folder}/host-link`, Readable.from([Buffer.from('streamed inside')]));
    expect(readFileSync(hostFile, 'utf8')).toBe(hostText);
    expect(await inside(`cat ${hostFile}`)).toBe('streamed inside');
    expect(await inside(`readlink ${folder}/host-link`)).toBe(`../../../../../..${hostFile}\n`);
    const dangling = `${folder}/nowhere-link`;
    await runtime.exec(id, `ln -sfn /no/such/folder/file ${dangling}`);
    const error = await refusal(runtime.writeFileFrom(id, dangling, Readable.from([Buffer.from('x')])));
    expect(error).toMatchObject({ param: 'path' });
    expect(error.message).toContain('a link on the way leads to a folder that does not exist');
  });

  it('ends the reading process when the consumer destroys the stream early', async () => {
    await runtime.exec(id, `head -c ${fileLimitBytes} /dev/zero > ${folder}/zeros`);
    const opened = await runtime.openFile(id, `${folder}/zeros`);
    await once(opened.bytes, 'readable');
    const readers = async () => (await inside('ps -eo comm=')).split('\n').filter((name) => name === 'head');
    // The sandbox's `head` waits on a full pipe while nobody reads.
    expect(await readers()).toEqual(['head']);
    opened.bytes.destroy();
    await once(opened.bytes, 'close');
    await eventually(async () => ((await readers()).length === 0 ? true : undefined), 5000, 'head to end');
  });

  it('cuts a file that grew after it was opened at the size announced', async () => {
    await runtime.exec(id, `head -c ${mib} /dev/zero > ${folder}/growing`);
    const opened = await runtime.openFile(id, `${folder}/growing`);
    await runtime.exec(id, `head -c ${mib} /dev/zero >> ${folder}/growing`);
    expect(opened.sizeBytes).toBe(mib);
    let received = 0;
    for await (const chunk of opened.bytes) received += (chunk as Buffer).length;
    expect(received).toBe(mib);
  });

  it('ends with an error, not a short file, when the file shrank while read', async () => {
    await runtime.exec(id, `head -c ${16 * mib} /dev/zero > ${folder}/shrinking`);
    const opened = await runtime.openFile(id, `${folder}/shrinking`);
    await runtime.exec(id, `truncate -s ${mib} ${folder}/shrinking`);
    const read = (async () => {
      for await (const _ of opened.bytes);
    })();
    await expect(read).rejects.toThrow(`${folder}/shrinking shrank while it was read`);
  });
});
