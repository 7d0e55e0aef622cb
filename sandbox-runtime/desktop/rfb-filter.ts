import { Transform } from 'node:stream';

// The live screen's input filter (spec, "Authentication" 4: a `view` token gets the screen
// with input ignored; "Embeddable screen": `view` shows, `control` also sends keyboard and
// mouse). A pure, incremental reader of the client-to-server half of RFB 3.8 (RFC 6143): the
// handshake (ProtocolVersion, the security type the client picks, ClientInit), then the
// client's messages. It passes everything on a `control` connection and drops KeyEvent,
// PointerEvent and ClientCutText on a `view` one, whatever chunks the bytes arrive in. A message
// type it does not know, or a security type other than None, ends the connection: an unknown
// length cannot be skipped, so nothing after it could be filtered.

export type RfbMode = 'view' | 'control';

/** What to send on for one chunk received; `error` says the connection must be closed. */
export interface RfbStep {
  forward: Buffer[];
  error?: string;
}

export interface RfbFilter {
  push(chunk: Buffer): RfbStep;
}

interface MessageSpec {
  name: string;
  /** Bytes of the fixed part, the type byte included. */
  header: number;
  /** Bytes that follow the fixed part, read from it. */
  payload: (header: Buffer) => number;
  /** Keyboard, pointer or clipboard input: dropped on a view connection. */
  input: boolean;
}

const none = () => 0;

/** RFC 6143, 7.5: client-to-server messages by type. */
export const clientMessages: ReadonlyMap<number, MessageSpec> = new Map([
  [0, { name: 'SetPixelFormat', header: 20, payload: none, input: false }],
  [2, { name: 'SetEncodings', header: 4, payload: (h: Buffer) => 4 * h.readUInt16BE(2), input: false }],
  [3, { name: 'FramebufferUpdateRequest', header: 10, payload: none, input: false }],
  [4, { name: 'KeyEvent', header: 8, payload: none, input: true }],
  [5, { name: 'PointerEvent', header: 6, payload: none, input: true }],
  // A negative length is the Extended Clipboard pseudo-encoding's: its absolute value follows.
  [6, { name: 'ClientCutText', header: 8, payload: (h: Buffer) => Math.abs(h.readInt32BE(4)), input: true }],
]);

const securityNone = 1;
const versionPattern = /^RFB (\d{3})\.(\d{3})\n$/;

type Phase =
  | { kind: 'version' }
  | { kind: 'security' }
  | { kind: 'clientInit' }
  | { kind: 'header'; spec?: MessageSpec }
  | { kind: 'payload'; remaining: number; pass: boolean }
  | { kind: 'closed'; error: string };

export function createRfbFilter(mode: RfbMode): RfbFilter {
  let phase: Phase = { kind: 'version' };
  /** Bytes of the current fixed-size part (version, header) gathered so far. */
  let gathered = Buffer.alloc(0);

  /** Gathers up to `size` bytes of a fixed part from `chunk` at `offset`; answers bytes used. */
  const gather = (chunk: Buffer, offset: number, size: number): number => {
    const used = Math.min(size - gathered.length, chunk.length - offset);
    gathered = Buffer.concat([gathered, chunk.subarray(offset, offset + used)]);
    return used;
  };

  /** Handles a complete fixed part; answers the next phase and whether to forward the part. */
  const complete = (part: Buffer): { next: Phase; pass: boolean } => {
    switch (phase.kind) {
      case 'version': {
        const match = versionPattern.exec(part.toString('latin1'));
        if (!match) return { next: { kind: 'closed', error: 'not an RFB ProtocolVersion' }, pass: false };
        // RFB 3.3: the server picks the security type; the client sends no choice.
        const v33 = match[1] === '003' && match[2] === '003';
        return { next: v33 ? { kind: 'clientInit' } : { kind: 'security' }, pass: true };
      }
      case 'security': {
        const type = part[0];
        if (type !== securityNone)
          return { next: { kind: 'closed', error: `security type ${type} is not None` }, pass: false };
        return { next: { kind: 'clientInit' }, pass: true };
      }
      case 'clientInit':
        return { next: { kind: 'header' }, pass: true };
      case 'header': {
        const spec = phase.spec;
        if (spec === undefined) throw new Error('a message header without its type');
        const pass = mode === 'control' || !spec.input;
        const remaining = spec.payload(part);
        return { next: remaining > 0 ? { kind: 'payload', remaining, pass } : { kind: 'header' }, pass };
      }
      default:
        throw new Error(`no fixed part in phase ${phase.kind}`);
    }
  };

  const sizeOf = (current: Phase): number => {
    if (current.kind === 'version') return 12;
    if (current.kind === 'header') return current.spec?.header ?? 1;
    return 1;
  };

  return {
    push(chunk) {
      const forward: Buffer[] = [];
      let offset = 0;
      while (offset < chunk.length && phase.kind !== 'closed') {
        if (phase.kind === 'payload') {
          const used = Math.min(phase.remaining, chunk.length - offset);
          if (phase.pass) forward.push(chunk.subarray(offset, offset + used));
          offset += used;
          const remaining = phase.remaining - used;
          phase = remaining > 0 ? { ...phase, remaining } : { kind: 'header' };
          continue;
        }
        if (phase.kind === 'header' && phase.spec === undefined) {
          const type = chunk[offset] ?? -1;
          const spec = clientMessages.get(type);
          if (!spec) {
            phase = { kind: 'closed', error: `unknown RFB client message type ${type}` };
            break;
          }
          phase = { kind: 'header', spec };
        }
        offset += gather(chunk, offset, sizeOf(phase));
        if (gathered.length < sizeOf(phase)) break;
        const part = gathered;
        gathered = Buffer.alloc(0);
        const { next, pass } = complete(part);
        if (pass) forward.push(part);
        phase = next;
      }
      return phase.kind === 'closed' ? { forward, error: phase.error } : { forward };
    },
  };
}

/** The filter as a stream: client bytes in, the bytes to send to the VNC server out. */
export function rfbFilterStream(mode: RfbMode): Transform {
  const filter = createRfbFilter(mode);
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const { forward, error } = filter.push(chunk);
      for (const part of forward) this.push(part);
      done(error === undefined ? null : new Error(error));
    },
  });
}
