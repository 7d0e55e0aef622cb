import type { RowBinaryWriter } from '../platform/clickhouse-rowbinary.ts';
import { spanFields as span } from '../schemas/events/spans-fields.ts';
import {
  generationKindCode,
  kindBytes,
  type SpanFields,
  spanIdBytes,
  traceIdBytes,
} from './span-wire-fields.ts';

// The trace list's read model (infra/migrations/clickhouse/0003_trace_fragments.sql): one row, a
// fragment, per trace of each span event, written by the spans projection beside the spans' rows
// (spans-rowbinary.ts) from the same bytes. Until migration 0007 a materialized view computed
// these rows inside ClickHouse from each insert into `spans`; it was more than half of ClickHouse's
// CPU per insert. A fragment is now a trace's spans in one event rather than in one insert; reads
// take a trace as the union of its fragments, so they cannot tell. The values are the view's,
// which test/int/traces/trace-fragment-rows.int.test.ts holds this writer to by running the
// view's own SELECT over the same spans.

/** The `trace_fragments` table's columns, in the order `TraceFragment.write` writes them. */
export const traceFragmentColumns = [
  'org_id',
  'trace_id',
  'trace_first_received_at',
  'min_start_time_unix_nano',
  'max_end_time_unix_nano',
  'span_ids',
  'error_span_ids',
  'generation_span_ids',
  'generation_input_tokens',
  'generation_output_tokens',
  'root_span',
  'trace_session_id',
  'trace_user_id',
  'trace_service',
  'trace_environment',
  'span_models',
  'span_kinds',
  'span_names',
  'generation_cost_nano_usd',
] as const;

/**
 * The trace values taken from the span first by precedence, in the columns' order: the root
 * span's name among root spans, and each context value among the spans that have it.
 */
const firstBy = [
  { value: span.name, among: 'roots' },
  { value: span.sessionId, among: 'present' },
  { value: span.userId, among: 'present' },
  { value: span.serviceName, among: 'present' },
  { value: span.environment, among: 'present' },
] as const;

/** The numbers kept per generation span (`TraceFragment.generations`). */
const generationStride = 9;

/** Length of a candidate's precedence: not root (1), start (16), offset (16), place (8), in hex. */
const precedenceLength = 41;
const hexDigits = Buffer.from('0123456789ABCDEF');

/** Compares two 64-bit values given as high and low 32 bits. */
const compare64 = (aHigh: number, aLow: number, bHigh: number, bLow: number) =>
  aHigh !== bHigh ? aHigh - bHigh : aLow - bLow;

/**
 * One trace's spans in one event, summarized as the view summarized a trace's rows in one insert.
 * Made once per event and reset for each of its traces.
 */
export class TraceFragment {
  private traceId: Buffer = Buffer.alloc(0);
  private firstReceived = 0;
  private count = 0;
  private minStartHigh = 0;
  private minStartLow = 0;
  private maxEndHigh = 0;
  private maxEndLow = 0;
  /** Each span id as its bytes' start and end. */
  private readonly spanIds: number[] = [];
  private readonly errorSpanIds: number[] = [];
  /**
   * Per generation (`generationStride` numbers): its span id's start and end, input and output
   * tokens as low and high, then whether it has a cost and the cost as low and high.
   */
  private readonly generations: number[] = [];
  /** Per `firstBy` entry: the leading span's place (-1 for none), key and value's bytes. */
  private readonly firstPlace = new Int32Array(firstBy.length);
  private readonly firstNotRoot = new Uint8Array(firstBy.length);
  private readonly firstStartHigh = new Uint32Array(firstBy.length);
  private readonly firstStartLow = new Uint32Array(firstBy.length);
  private readonly firstValueStart = new Int32Array(firstBy.length);
  private readonly firstValueEnd = new Int32Array(firstBy.length);
  private readonly models = new DistinctTexts();
  private readonly names = new DistinctTexts();
  private readonly kinds: number[] = [];
  private readonly precedence = Buffer.alloc(precedenceLength);

  constructor(
    /** Where each trace's fragment row is appended. */
    private readonly out: RowBinaryWriter,
    private readonly bytes: Buffer,
    /** The org id's UTF-8 bytes. */
    private readonly orgId: Buffer,
    /** The event's offset, low and high 32 bits: the same for every span of the fragment. */
    private readonly offset: readonly [number, number],
  ) {}

  /** Starts the fragment of a trace, given its id's UTF-8 bytes. */
  begin(traceId: Buffer, firstReceived: number): void {
    this.traceId = traceId;
    this.firstReceived = firstReceived;
    this.count = 0;
    this.spanIds.length = 0;
    this.errorSpanIds.length = 0;
    this.generations.length = 0;
    this.firstPlace.fill(-1);
    this.models.clear();
    this.names.clear();
    this.kinds.length = 0;
  }

  /** Adds a span as read, with its place in the event and its kind column's value. */
  add(fields: SpanFields, place: number, kind: number): void {
    // No arrays or strings made per span: this runs for every span consumed.
    const { bytes } = this;
    const startHigh = fields.high(span.startTimeUnixNano);
    const startLow = fields.low(span.startTimeUnixNano);
    const endHigh = fields.high(span.endTimeUnixNano);
    const endLow = fields.low(span.endTimeUnixNano);
    if (this.count === 0 || compare64(startHigh, startLow, this.minStartHigh, this.minStartLow) < 0) {
      this.minStartHigh = startHigh;
      this.minStartLow = startLow;
    }
    if (this.count === 0 || compare64(endHigh, endLow, this.maxEndHigh, this.maxEndLow) > 0) {
      this.maxEndHigh = endHigh;
      this.maxEndLow = endLow;
    }
    this.count += 1;

    const idStart = fields.textStart(span.spanId);
    const idEnd = fields.textEnd(span.spanId);
    this.spanIds.push(idStart, idEnd);
    if (fields.statusCode() === 2) this.errorSpanIds.push(idStart, idEnd);
    // Tokens as `ifNull(tokens, 0)`; the cost stays NULL when absent.
    if (kind === generationKindCode)
      this.generations.push(
        idStart,
        idEnd,
        fields.low(span.inputTokens),
        fields.high(span.inputTokens),
        fields.low(span.outputTokens),
        fields.high(span.outputTokens),
        fields.has(span.costNanoUsd) ? 1 : 0,
        fields.low(span.costNanoUsd),
        fields.high(span.costNanoUsd),
      );

    const notRoot = fields.hasText(span.parentSpanId) ? 1 : 0;
    for (let slot = 0; slot < firstBy.length; slot += 1) {
      const { value, among } = firstBy[slot]!;
      if (among === 'roots' ? notRoot === 1 : !fields.has(value)) continue;
      if (this.firstPlace[slot]! >= 0 && !this.precedes(slot, notRoot, startHigh, startLow, place)) continue;
      this.firstPlace[slot] = place;
      this.firstNotRoot[slot] = notRoot;
      this.firstStartHigh[slot] = startHigh;
      this.firstStartLow[slot] = startLow;
      // A root's name is a text column ('' when absent); the context values are Nullable.
      this.firstValueStart[slot] = among === 'roots' ? fields.textStart(value) : fields.starts[value]!;
      this.firstValueEnd[slot] = among === 'roots' ? fields.textEnd(value) : fields.ends[value]!;
    }

    if (fields.has(span.model)) this.models.add(bytes, fields.starts[span.model]!, fields.ends[span.model]!);
    this.names.add(bytes, fields.textStart(span.name), fields.textEnd(span.name));
    if (!this.kinds.includes(kind)) this.kinds.push(kind);
  }

  /** Whether a span goes before the slot's leader: by not root, start, then place (the offset is shared). */
  private precedes(
    slot: number,
    notRoot: number,
    startHigh: number,
    startLow: number,
    place: number,
  ): boolean {
    if (notRoot !== this.firstNotRoot[slot]) return notRoot < this.firstNotRoot[slot]!;
    const byStart = compare64(startHigh, startLow, this.firstStartHigh[slot]!, this.firstStartLow[slot]!);
    return byStart !== 0 ? byStart < 0 : place < this.firstPlace[slot]!;
  }

  /** Appends the fragment's row, values in `traceFragmentColumns`' order; nothing for a trace without spans. */
  write(): void {
    if (this.count === 0) return;
    const { bytes, out } = this;
    out.stringOf(this.orgId);
    out.fixedHex(this.traceId, 0, this.traceId.length, traceIdBytes);
    out.uint32(this.firstReceived);
    out.uint64(this.minStartLow, this.minStartHigh);
    out.uint64(this.maxEndLow, this.maxEndHigh);
    writeSpanIds(out, bytes, this.spanIds, 2);
    writeSpanIds(out, bytes, this.errorSpanIds, 2);
    const { generations } = this;
    writeSpanIds(out, bytes, generations, generationStride);
    for (const first of [2, 4]) {
      out.arrayLength(generations.length / generationStride);
      for (let at = 0; at < generations.length; at += generationStride)
        out.uint64(generations[at + first]!, generations[at + first + 1]!);
    }
    for (let slot = 0; slot < firstBy.length; slot += 1) {
      out.nullMarker(this.firstPlace[slot]! < 0);
      if (this.firstPlace[slot]! < 0) continue;
      this.writePrecedence(slot);
      out.prefixedStringBytes(this.precedence, bytes, this.firstValueStart[slot]!, this.firstValueEnd[slot]!);
    }
    writeTexts(out, bytes, this.models.places, 2);
    out.arrayLength(this.kinds.length);
    for (const kind of this.kinds) out.stringOf(kindBytes[kind - 1]!);
    writeTexts(out, bytes, this.names.places, 2);
    out.arrayLength(generations.length / generationStride);
    for (let at = 0; at < generations.length; at += generationStride) {
      out.nullMarker(generations[at + 6] === 0);
      if (generations[at + 6] === 1) out.uint64(generations[at + 7]!, generations[at + 8]!);
    }
  }

  /** The slot leader's precedence, the view's fixed-width key: not root, start, offset, place, in hex. */
  private writePrecedence(slot: number): void {
    const key = this.precedence;
    key[0] = this.firstNotRoot[slot] === 1 ? 0x31 : 0x30;
    hex8(key, 1, this.firstStartHigh[slot]!);
    hex8(key, 9, this.firstStartLow[slot]!);
    hex8(key, 17, this.offset[1]);
    hex8(key, 25, this.offset[0]);
    hex8(key, 33, this.firstPlace[slot]!);
  }
}

/**
 * Distinct texts of one event's bytes, by their places, in the order first seen. A few are
 * compared byte by byte; past `scanned`, a map keyed by their bytes (as latin1, a char a byte)
 * finds them.
 */
class DistinctTexts {
  readonly places: number[] = [];
  private readonly byBytes = new Map<string, true>();
  private static readonly scanned = 8;

  clear(): void {
    this.places.length = 0;
    if (this.byBytes.size > 0) this.byBytes.clear();
  }

  add(bytes: Buffer, start: number, end: number): void {
    const { places, byBytes } = this;
    const count = places.length / 2;
    if (count < DistinctTexts.scanned) {
      for (let at = 0; at < places.length; at += 2)
        if (sameBytes(bytes, places[at]!, places[at + 1]!, start, end)) return;
    } else {
      if (count === DistinctTexts.scanned)
        for (let at = 0; at < places.length; at += 2)
          byBytes.set(bytes.toString('latin1', places[at]!, places[at + 1]!), true);
      const key = bytes.toString('latin1', start, end);
      if (byBytes.has(key)) return;
      byBytes.set(key, true);
    }
    places.push(start, end);
  }
}

function sameBytes(bytes: Buffer, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let offset = 0; offset < aEnd - aStart; offset += 1)
    if (bytes[aStart + offset] !== bytes[bStart + offset]) return false;
  return true;
}

/** An Array(FixedString(8)) of the hex span ids at every `stride` numbers of `places`, as their bytes. */
function writeSpanIds(out: RowBinaryWriter, bytes: Buffer, places: number[], stride: number): void {
  out.arrayLength(places.length / stride);
  for (let at = 0; at < places.length; at += stride)
    out.fixedHex(bytes, places[at]!, places[at + 1]!, spanIdBytes);
}

/** An Array(String) of the texts at every `stride` numbers of `places` (each a start and an end). */
function writeTexts(out: RowBinaryWriter, bytes: Buffer, places: number[], stride: number): void {
  out.arrayLength(places.length / stride);
  for (let at = 0; at < places.length; at += stride) out.stringBytes(bytes, places[at]!, places[at + 1]!);
}

/** A 32-bit value as 8 hex digits, upper case and zero-padded (as the view's `hex`), into `key` at `at`. */
function hex8(key: Buffer, at: number, value: number): void {
  let rest = value >>> 0;
  for (let place = at + 7; place >= at; place -= 1) {
    key[place] = hexDigits[rest & 0xf]!;
    rest >>>= 4;
  }
}
