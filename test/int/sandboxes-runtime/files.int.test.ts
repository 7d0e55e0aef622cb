import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileLimitBytes } from '../../../sandbox-runtime/files.ts';
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
