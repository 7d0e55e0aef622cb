import { describe, expect, it } from 'vitest';
import {
  createRfbFilter,
  type RfbMode,
  rfbFilterStream,
} from '../../../sandbox-runtime/desktop/rfb-filter.ts';

// The live screen's filter of the client's RFB 3.8 stream: a view connection's keyboard, pointer
// and clipboard are dropped, everything else passes, whatever the chunks (RFC 6143, 7.5).

const bytes = (...values: number[]) => Buffer.from(values);
const u16 = (value: number) => [value >> 8, value & 0xff];
const s32 = (value: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(value);
  return [...b];
};

const handshake = Buffer.concat([Buffer.from('RFB 003.008\n', 'latin1'), bytes(1), bytes(1)]);
const setPixelFormat = bytes(
  0,
  0,
  0,
  0,
  32,
  24,
  0,
  1,
  ...u16(255),
  ...u16(255),
  ...u16(255),
  16,
  8,
  0,
  0,
  0,
  0,
);
const setEncodings = bytes(2, 0, ...u16(3), ...s32(0), ...s32(1), ...s32(-239));
const updateRequest = bytes(3, 1, ...u16(0), ...u16(0), ...u16(1280), ...u16(800));
const keyEvent = bytes(4, 1, 0, 0, ...s32(0xff0d));
const pointerEvent = bytes(5, 1, ...u16(100), ...u16(200));
const cutText = Buffer.concat([bytes(6, 0, 0, 0, ...s32(5)), Buffer.from('hello')]);
const extendedCutText = Buffer.concat([bytes(6, 0, 0, 0, ...s32(-6)), bytes(0, 0, 0, 1, 0, 0)]);

const session = Buffer.concat([
  handshake,
  setPixelFormat,
  setEncodings,
  keyEvent,
  updateRequest,
  pointerEvent,
  cutText,
  extendedCutText,
  pointerEvent,
  updateRequest,
]);
const viewed = Buffer.concat([handshake, setPixelFormat, setEncodings, updateRequest, updateRequest]);

function run(mode: RfbMode, input: Buffer, chunkSize: number): { out: Buffer; error?: string } {
  const filter = createRfbFilter(mode);
  const out: Buffer[] = [];
  for (let i = 0; i < input.length; i += chunkSize) {
    const step = filter.push(input.subarray(i, i + chunkSize));
    out.push(...step.forward);
    if (step.error !== undefined) return { out: Buffer.concat(out), error: step.error };
  }
  return { out: Buffer.concat(out) };
}

const chunkSizes = [1, 2, 3, 5, 7, 11, 13, 64, session.length];

describe('the RFB input filter', () => {
  it.each(chunkSizes)('passes a control connection byte for byte (chunks of %i)', (size) => {
    expect(run('control', session, size)).toEqual({ out: session });
  });

  it.each(chunkSizes)(
    'drops KeyEvent, PointerEvent and ClientCutText of a view connection (chunks of %i)',
    (size) => {
      expect(run('view', session, size)).toEqual({ out: viewed });
    },
  );

  it('handles a message split in two chunks anywhere', () => {
    const input = Buffer.concat([handshake, cutText, setEncodings]);
    for (let cut = 0; cut <= input.length; cut++) {
      const filter = createRfbFilter('view');
      const first = filter.push(input.subarray(0, cut));
      const second = filter.push(input.subarray(cut));
      expect(Buffer.concat([...first.forward, ...second.forward])).toEqual(
        Buffer.concat([handshake, setEncodings]),
      );
    }
  });

  it('closes on an unknown message type, passing nothing after it', () => {
    const input = Buffer.concat([handshake, updateRequest, bytes(7, 0, 0, 0), updateRequest]);
    const result = run('control', input, input.length);
    expect(result.out).toEqual(Buffer.concat([handshake, updateRequest]));
    expect(result.error).toBe('unknown RFB client message type 7');
    const filter = createRfbFilter('view');
    expect(filter.push(input).error).toBeDefined();
    expect(filter.push(updateRequest)).toEqual({ forward: [], error: 'unknown RFB client message type 7' });
  });

  it('closes on a security type other than None, and on a stream that is not RFB', () => {
    const vncAuth = Buffer.concat([Buffer.from('RFB 003.008\n', 'latin1'), bytes(2)]);
    expect(run('view', vncAuth, 1)).toMatchObject({ error: 'security type 2 is not None' });
    expect(run('control', Buffer.from('GET / HTTP/1.1\r\n'), 4)).toMatchObject({
      out: Buffer.alloc(0),
      error: 'not an RFB ProtocolVersion',
    });
  });

  it('reads RFB 3.3, where the client sends no security type', () => {
    const v33 = Buffer.concat([
      Buffer.from('RFB 003.003\n', 'latin1'),
      bytes(1),
      pointerEvent,
      updateRequest,
    ]);
    expect(run('view', v33, 3)).toEqual({
      out: Buffer.concat([Buffer.from('RFB 003.003\n', 'latin1'), bytes(1), updateRequest]),
    });
  });

  it('works as a stream, and fails the stream on an unknown message', async () => {
    const stream = rfbFilterStream('view');
    const out: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk));
    const failed = new Promise<Error>((resolve) => stream.on('error', resolve));
    stream.write(session.subarray(0, 30));
    stream.write(session.subarray(30));
    stream.write(bytes(99));
    expect((await failed).message).toBe('unknown RFB client message type 99');
    expect(Buffer.concat(out)).toEqual(viewed);
  });
});
