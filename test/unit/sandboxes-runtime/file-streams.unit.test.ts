import { once } from 'node:events';
import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { collectSized, feed, SourceEndedEarly, sizedBody } from '../../../sandbox-runtime/file-streams.ts';

// The stream mechanics of files.ts without a sandbox: a PassThrough stands for the child's pipes.

const hooks = (stop = vi.fn(async () => {})) => ({
  short: async (received: number) => new Error(`short: ${received}`),
  stop,
});

describe('sizedBody', () => {
  it('gives exactly the size: the first chunk, then the source, cut where it grew', async () => {
    const source = new PassThrough();
    const body = sizedBody(source, 6, Buffer.from('ab'), hooks());
    source.end(Buffer.from('cdefgh'));
    expect(Buffer.from(await collectSized(body, 6)).toString()).toBe('abcdef');
  });

  it('ends with an error when the source ends short', async () => {
    const source = new PassThrough();
    const body = sizedBody(source, 10, Buffer.from('ab'), hooks());
    source.end(Buffer.from('cd'));
    await expect(collectSized(body, 10)).rejects.toThrow('short: 4');
  });

  it('pauses the source while nobody reads the body', async () => {
    const source = new PassThrough({ highWaterMark: 1024 });
    const body = sizedBody(source, 1024 * 1024, Buffer.alloc(0), hooks());
    body.resume();
    body.pause();
    // Four times what the body buffers: the rest must stay with the writer.
    for (let i = 0; i < 256; i++) source.write(Buffer.alloc(1024));
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.isPaused()).toBe(true);
    expect(body.readableLength).toBeLessThanOrEqual(body.readableHighWaterMark + 1024);
    expect(source.writableNeedDrain).toBe(true);
  });

  it('stops the producer when destroyed early, and closes once it is gone', async () => {
    const stop = vi.fn(async () => {});
    const source = new PassThrough();
    const body = sizedBody(source, 100, Buffer.from('a'), hooks(stop));
    body.destroy();
    await once(body, 'close');
    expect(stop).toHaveBeenCalledOnce();
  });

  it('an empty file ends at once', async () => {
    const body = sizedBody(new PassThrough(), 0, Buffer.alloc(0), hooks());
    expect((await collectSized(body, 0)).length).toBe(0);
  });
});

describe('feed', () => {
  const slowSink = () => {
    const written: Buffer[] = [];
    let release: (() => void) | undefined;
    const sink = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk);
        release = callback;
      },
    });
    return { sink, written, release: () => release?.() };
  };

  it('counts what it writes and leaves the sink open', async () => {
    const sink = new PassThrough();
    const count = await feed(Readable.from([Buffer.from('abc'), 'de']), sink, () => undefined);
    expect(count).toBe(5);
    expect(sink.writableEnded).toBe(false);
    expect(sink.read()?.toString()).toBe('abcde');
  });

  it('refuses at the first chunk over the budget and leaves the source paused, not destroyed', async () => {
    const source = new PassThrough();
    const sink = new PassThrough();
    const refusal = new Error('too much');
    const fed = feed(source, sink, (count) => (count > 4 ? refusal : undefined));
    source.write(Buffer.from('abc'));
    source.write(Buffer.from('def'));
    await expect(fed).rejects.toBe(refusal);
    expect(sink.read()?.toString()).toBe('abc');
    expect(source.destroyed).toBe(false);
    expect(source.isPaused()).toBe(true);
  });

  it('takes from the source only as fast as the sink drains', async () => {
    const { sink, written, release } = slowSink();
    const source = new PassThrough({ highWaterMark: 1024 });
    const fed = feed(source, sink, () => undefined);
    for (let i = 0; i < 8; i++) source.write(Buffer.alloc(1024));
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.length).toBe(1);
    expect(source.isPaused()).toBe(true);
    source.end();
    for (let i = 0; written.length < 8 || i < written.length; i++) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await fed).toBe(8 * 1024);
  });

  it('rejects with the source error, and on a source destroyed before its end', async () => {
    const failing = new PassThrough();
    const boom = new Error('boom');
    const fed = feed(failing, new PassThrough(), () => undefined);
    failing.destroy(boom);
    await expect(fed).rejects.toBe(boom);

    const cut = new PassThrough();
    const cutFed = feed(cut, new PassThrough(), () => undefined);
    cut.destroy();
    await expect(cutFed).rejects.toBeInstanceOf(SourceEndedEarly);
  });
});
