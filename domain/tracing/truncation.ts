// The cuts that enforce trace ingestion's size limits (limits.ts, the spec's 001 "Limits"):
// strings cut at a character boundary with a marker, JSON made to fit by cutting its longest
// strings first, and a stored span brought within every per-span limit.
import { limits } from './limits.ts';
import type { JsonValue, StoredSpan } from './span.ts';

const truncationMarker = (removedBytes: number): string => `…[truncated ${removedBytes} bytes]`;
/** UTF-8 bytes of that marker: `…` is 3 bytes, the rest ASCII (no Buffer call: probes need it often). */
const markerBytes = (removedBytes: number): number => 21 + String(removedBytes).length;

/** Strings at most this long are never cut by fitJson: the longest marker needs 31 bytes. */
const minimumCap = 32;

// JSON.stringify's output length for each ASCII code unit: quote and backslash and the short
// control escapes take 2, other control characters take 6 (\u00XX).
const asciiJsonBytes = Uint8Array.from({ length: 128 }, (_, c) =>
  c === 0x22 || c === 0x5c || [8, 9, 10, 12, 13].includes(c) ? 2 : c < 0x20 ? 6 : 1,
);

interface Prefix {
  /** End of the prefix, in UTF-16 code units. */
  end: number;
  utf8Bytes: number;
  /** Bytes of the prefix inside a JSON string literal (escapes counted, quotes not). */
  jsonBytes: number;
}

const emptyPrefix: Prefix = { end: 0, utf8Bytes: 0, jsonBytes: 0 };

/**
 * The longest prefix of whole characters that fits in budget UTF-8 bytes, walked on from a shorter
 * such prefix (the prefixes are greedy, so each extends the one before); O(bytes walked).
 */
function prefixWithin(text: string, budget: number, from = emptyPrefix): Prefix {
  let { end, utf8Bytes, jsonBytes } = from;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    const pair = c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00;
    const lone = !pair && c >= 0xd800 && c <= 0xdfff;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (utf8Bytes + size > budget) break;
    utf8Bytes += size;
    // A lone surrogate is U+FFFD (3 bytes) in UTF-8 and \uXXXX (6 bytes) in JSON.
    jsonBytes += c < 0x80 ? asciiJsonBytes[c]! : lone ? 6 : size;
    end += pair ? 2 : 1;
  }
  return { end, utf8Bytes, jsonBytes };
}

// fitJson probes many cuts of the same long string: it walks each once, keeping the prefix at
// every 64 bytes, and starts each probe from the nearest.
const checkpointBytes = 64;
function checkpointsOf(text: string, limit: number): Prefix[] {
  const points = [emptyPrefix];
  for (let budget = checkpointBytes; budget <= limit; budget += checkpointBytes) {
    points.push(prefixWithin(text, budget, points.at(-1)));
  }
  return points;
}

interface Cut {
  prefix: Prefix;
  /** Bytes removed, which the marker states; null when not even the marker fits. */
  removed: number | null;
}

/** Plans the cut of a text of `bytes` UTF-8 bytes to at most maxBytes, marker included. */
function planCut(text: string, bytes: number, maxBytes: number, checkpoints = [emptyPrefix]): Cut {
  // Room is kept for the marker of the largest possible removal, so the real (shorter or
  // equal) marker always fits; the result may fall a byte short of maxBytes.
  const reserve = markerBytes(bytes);
  if (maxBytes < reserve) return { prefix: prefixWithin(text, maxBytes), removed: null };
  const budget = maxBytes - reserve;
  const from = checkpoints[Math.min(Math.floor(budget / checkpointBytes), checkpoints.length - 1)];
  const prefix = prefixWithin(text, budget, from);
  return { prefix, removed: bytes - prefix.utf8Bytes };
}

/**
 * The text unchanged when it fits in maxBytes UTF-8 bytes; otherwise its longest prefix of whole
 * characters followed by `…[truncated <n> bytes]` (n: bytes of the original removed), at most
 * maxBytes in all. Below the marker's own size (never the case for our limits) no marker is added.
 */
export function cutString(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  const { prefix, removed } = planCut(text, bytes, maxBytes);
  return text.slice(0, prefix.end) + (removed === null ? '' : truncationMarker(removed));
}

const jsonBytesOf = (value: JsonValue): number => Buffer.byteLength(JSON.stringify(value));

function collectStrings(value: JsonValue, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) collectStrings(item, into);
  }
  return into;
}

/** Every string value (object keys are kept) longer than cap bytes, cut to cap. */
function capStrings(value: JsonValue, cap: number): JsonValue {
  if (typeof value === 'string') return cutString(value, cap);
  if (Array.isArray(value)) return value.map((item) => capStrings(item, cap));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, capStrings(item, cap)]));
}

/** When cutting strings cannot fit the value: the value becomes its own JSON text, cut. */
function cutJsonText(json: string, maxBytes: number): string {
  let budget = maxBytes - 2;
  for (;;) {
    const text = cutString(json, budget);
    const over = jsonBytesOf(text) - maxBytes;
    if (over <= 0 || budget <= 0) return text;
    budget -= over;
  }
}

/**
 * Makes JSON.stringify(value) fit in maxBytes by cutting the longest strings first: the largest
 * cap L such that cutting every string value longer than L bytes to L (cutString) fits. Sizes are
 * computed without re-serializing (O(strings) per probe, a binary search over L). When even
 * cutting every string to 32 bytes is not enough (huge arrays of numbers, many keys), the value is
 * replaced by its JSON text as a string, cut to fit.
 */
export function fitJson(value: JsonValue, maxBytes: number): { value: JsonValue; truncated: boolean } {
  const json = JSON.stringify(value);
  const total = Buffer.byteLength(json);
  if (total <= maxBytes) return { value, truncated: false };
  const strings = collectStrings(value, [])
    .map((text) => ({
      text,
      bytes: Buffer.byteLength(text),
      jsonBytes: jsonBytesOf(text),
      checkpoints: undefined as Prefix[] | undefined,
    }))
    .sort((a, b) => b.bytes - a.bytes);
  const uncutFrom = [0];
  for (const s of strings) uncutFrom.push(uncutFrom.at(-1)! + s.jsonBytes);
  const allStrings = uncutFrom.at(-1)!;
  const sizeAt = (cap: number): number => {
    let size = total - allStrings;
    let i = 0;
    for (; i < strings.length && strings[i]!.bytes > cap; i++) {
      const s = strings[i]!;
      s.checkpoints ??= checkpointsOf(s.text, Math.min(s.bytes, maxBytes));
      const cut = planCut(s.text, s.bytes, cap, s.checkpoints);
      size += 2 + cut.prefix.jsonBytes + (cut.removed === null ? 0 : markerBytes(cut.removed));
    }
    return size + allStrings - uncutFrom[i]!;
  };
  if (sizeAt(minimumCap) > maxBytes) return { value: cutJsonText(json, maxBytes), truncated: true };
  let fits = minimumCap;
  // A cap past maxBytes cannot fit, so probes never walk further than maxBytes into a string.
  let over = Math.min(strings[0]!.bytes, maxBytes + 1);
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if (sizeAt(mid) <= maxBytes) fits = mid;
    else over = mid;
  }
  return { value: capStrings(value, fits), truncated: true };
}

// Counted as stored span data: the UTF-8 bytes of every text field (ids, name, JSON texts, ...),
// plus this allowance for the numeric and boolean fields (times, token counts, status, flags).
const numericFieldBytes = 64;

/** The span's size as counted against "Whole span" and the monthly stored data: see above. */
export function storedSpanBytes(span: StoredSpan): number {
  // Field by field rather than over a list of names: a keyed load with many keys at one site is
  // slow in V8, and this runs for every span received. truncation-span.unit.test.ts checks that
  // every text field of StoredSpan is counted.
  return (
    numericFieldBytes +
    utf8Bytes(span.traceId) +
    utf8Bytes(span.spanId) +
    utf8Bytes(span.parentSpanId) +
    utf8Bytes(span.name) +
    utf8Bytes(span.kind) +
    utf8Bytes(span.statusMessage) +
    optionalBytes(span.model) +
    optionalBytes(span.input) +
    optionalBytes(span.output) +
    optionalBytes(span.sessionId) +
    optionalBytes(span.userId) +
    optionalBytes(span.serviceName) +
    optionalBytes(span.environment) +
    utf8Bytes(span.attributes) +
    utf8Bytes(span.events) +
    utf8Bytes(span.links) +
    utf8Bytes(span.resourceAttributes) +
    utf8Bytes(span.scopeName) +
    utf8Bytes(span.scopeVersion)
  );
}

const optionalBytes = (text: string | null): number => (text === null ? 0 : utf8Bytes(text));

/**
 * Text's length in UTF-8, as Buffer.byteLength counts it (a lone surrogate as U+FFFD). Short
 * text is counted here: a span has a dozen short fields, and the native call costs several times
 * more than the count for them.
 */
export function utf8Bytes(text: string): number {
  if (text.length > 64) return Buffer.byteLength(text);
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (isSurrogatePair(code, text.charCodeAt(index + 1))) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

const isSurrogatePair = (high: number, low: number): boolean =>
  high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;

/** Plain string fields under "Other string values" (ids are checked by admission instead). */
const otherStringFields = [
  'statusMessage',
  'model',
  'sessionId',
  'userId',
  'serviceName',
  'environment',
  'scopeName',
  'scopeVersion',
] as const satisfies readonly (keyof StoredSpan)[];

type Entries = [string, JsonValue][];

const isRecord = (value: JsonValue): value is { [key: string]: JsonValue } =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const parseEntries = (text: string): Entries => {
  const value: JsonValue = text === '' ? {} : JSON.parse(text);
  return isRecord(value) ? Object.entries(value) : [];
};
const parseItems = (text: string): JsonValue[] => {
  const value: JsonValue = text === '' ? [] : JSON.parse(text);
  return Array.isArray(value) ? value : [];
};

const limitStrings = (value: JsonValue): JsonValue => capStrings(value, limits.stringBytes);

/** The first attributesPerSpan attributes, each string value cut to stringBytes. */
const limitAttributes = (entries: Entries): Entries =>
  entries.slice(0, limits.attributesPerSpan).map(([key, value]) => [key, limitStrings(value)]);

/** An event or link: its attributes limited, its other strings (name, trace state) cut. */
function limitRecord(item: JsonValue): JsonValue {
  if (!isRecord(item)) return limitStrings(item);
  const entries = Object.entries(item).map(([key, value]): [string, JsonValue] =>
    key === 'attributes' && isRecord(value)
      ? [key, Object.fromEntries(limitAttributes(Object.entries(value)))]
      : [key, limitStrings(value)],
  );
  return Object.fromEntries(entries);
}

/** A JSON object or array kept as serialized members, so a prefix of them can be measured. */
interface Members {
  brackets: '{}' | '[]';
  parts: string[];
}
const objectMembers = (entries: Entries): Members => ({
  brackets: '{}',
  parts: entries.map(([key, value]) => JSON.stringify(key) + ':' + JSON.stringify(value)),
});
const arrayMembers = (items: JsonValue[]): Members => ({
  brackets: '[]',
  parts: items.map((item) => JSON.stringify(item)),
});
const joinMembers = ({ brackets, parts }: Members, count = parts.length): string =>
  brackets[0] + parts.slice(0, count).join(',') + brackets[1];

/** Bytes the first `count` members add to an empty `{}` or `[]`. */
const extraBytes = (m: Members, count = m.parts.length): number =>
  Buffer.byteLength(joinMembers(m, count)) - 2;

/** How many leading members fit when they may add at most budget bytes. */
function membersWithin(m: Members, budget: number): number {
  let used = -1;
  for (let count = 0; count < m.parts.length; count++) {
    used += Buffer.byteLength(m.parts[count]!) + 1;
    if (used > budget) return count;
  }
  return m.parts.length;
}

/**
 * Over the whole-span limit, input and output share the room the rest of the span leaves, a side
 * under its half leaving the rest to the other.
 */
function fitInputOutputIntoRoomLeft(span: StoredSpan): StoredSpan {
  if (storedSpanBytes(span) <= limits.spanBytes) return span;
  const budget = limits.spanBytes - storedSpanBytes({ ...span, input: null, output: null });
  const inBytes = Buffer.byteLength(span.input ?? '');
  const outBytes = Buffer.byteLength(span.output ?? '');
  const half = Math.floor(budget / 2);
  const inCap = Math.max(half, budget - outBytes);
  const outCap = Math.max(half, budget - Math.min(inBytes, inCap));
  const fitText = (text: string | null, cap: number) => {
    if (text === null || Buffer.byteLength(text) <= cap) return { text, truncated: false };
    const fitted = fitJson(JSON.parse(text), cap);
    return { text: JSON.stringify(fitted.value), truncated: fitted.truncated };
  };
  const input = fitText(span.input, inCap);
  const output = fitText(span.output, outCap);
  return {
    ...span,
    input: input.text,
    output: output.text,
    inputTruncated: span.inputTruncated || input.truncated,
    outputTruncated: span.outputTruncated || output.truncated,
  };
}

/**
 * The span within every per-span limit (limits.ts): the name cut to spanNameBytes and the other
 * string values to stringBytes (input and output, cut by the caller to inputOutputBytes, are
 * exempt); the first attributesPerSpan attributes of the span, of each event and of each link, the
 * first eventsPerSpan events and linksPerSpan links, in order; resource attributes kept in order
 * while the object stays within resourceAttributesBytes (the first one that does not fit ends it).
 * Over spanBytes, whole trailing members are dropped: events first, then links, then attributes;
 * only if that is not enough are input and output fitted into what is left (fitJson).
 */
export function limitSpan(span: StoredSpan): StoredSpan {
  const cutFields = Object.fromEntries(
    otherStringFields.map((field) => {
      const text = span[field];
      return [field, text === null ? null : cutString(text, limits.stringBytes)];
    }),
  ) as Pick<StoredSpan, (typeof otherStringFields)[number]>;
  const resource = objectMembers(parseEntries(span.resourceAttributes));
  const base: StoredSpan = {
    ...span,
    ...cutFields,
    name: cutString(span.name, limits.spanNameBytes),
    resourceAttributes: joinMembers(resource, membersWithin(resource, limits.resourceAttributesBytes - 2)),
    events: '[]',
    links: '[]',
    attributes: '{}',
  };
  // In the order they are shrunk when the whole span is over its limit.
  const shrinkable = [
    {
      field: 'events',
      members: arrayMembers(parseItems(span.events).slice(0, limits.eventsPerSpan).map(limitRecord)),
    },
    {
      field: 'links',
      members: arrayMembers(parseItems(span.links).slice(0, limits.linksPerSpan).map(limitRecord)),
    },
    { field: 'attributes', members: objectMembers(limitAttributes(parseEntries(span.attributes))) },
  ] as const;
  let room = limits.spanBytes - storedSpanBytes(base);
  const limited = { ...base };
  shrinkable.forEach(({ field, members }, i) => {
    const later = shrinkable.slice(i + 1).reduce((sum, s) => sum + extraBytes(s.members), 0);
    const count = membersWithin(members, room - later);
    room -= extraBytes(members, count);
    limited[field] = joinMembers(members, count);
  });
  return fitInputOutputIntoRoomLeft(limited);
}
