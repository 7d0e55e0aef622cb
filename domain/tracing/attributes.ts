// OTLP attribute values as plain JSON, and the look-ups every reader of "Attributes read" (001)
// shares: the first attribute of a list that the span has, and the `<prefix>.<n>.` indexed families.

import type { AnyValue, KeyValue } from './otlp.ts';
import type { JsonValue } from './span.ts';

export type JsonObject = { [key: string]: JsonValue };

/** AnyValue → JSON: int64 stays a number only while exact; bytes become base64; kvlist an object. */
export function toJson(value: AnyValue): JsonValue {
  switch (value.kind) {
    case 'string':
    case 'bool':
      return value.value;
    case 'int':
      return intToJson(value.value);
    case 'double':
      // JSON has no NaN or Infinity; their names keep what was sent readable.
      return Number.isFinite(value.value) ? value.value : String(value.value);
    case 'bytes':
      return Buffer.from(value.value).toString('base64');
    case 'array':
      return value.values.map(toJson);
    case 'kvlist':
      return attributesToJson(value.values);
    case 'empty':
      return null;
  }
}

function intToJson(value: bigint): JsonValue {
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value.toString();
}

/** Key-values as one JSON object; a repeated key keeps its first value, as `findAttribute` does. */
export function attributesToJson(attributes: readonly KeyValue[]): JsonObject {
  const object: JsonObject = {};
  for (const { key, value } of attributes) {
    if (!Object.hasOwn(object, key)) object[key] = toJson(value);
  }
  return object;
}

/** JSON → AnyValue, the inverse of `toJson` up to its lossy cases (used after redacting as JSON). */
export function fromJson(value: JsonValue): AnyValue {
  if (value === null) return { kind: 'empty' };
  if (typeof value === 'string') return { kind: 'string', value };
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) ? { kind: 'int', value: BigInt(value) } : { kind: 'double', value };
  }
  if (Array.isArray(value)) return { kind: 'array', values: value.map(fromJson) };
  return { kind: 'kvlist', values: jsonToAttributes(value) };
}

export function jsonToAttributes(object: JsonObject): KeyValue[] {
  return Object.entries(object).map(([key, value]) => ({ key, value: fromJson(value) }));
}

export function findAttribute(attributes: readonly KeyValue[], key: string): AnyValue | undefined {
  return attributes.find((attribute) => attribute.key === key)?.value;
}

/** A string attribute's value; an empty string counts as absent. */
export function readString(attributes: readonly KeyValue[], key: string): string | undefined {
  const value = findAttribute(attributes, key);
  return value?.kind === 'string' && value.value !== '' ? value.value : undefined;
}

/** The first attribute in `keys` that `read` finds a value for ("the first attribute in the list"). */
export function firstOf<T>(
  attributes: readonly KeyValue[],
  keys: readonly string[],
  read: (attributes: readonly KeyValue[], key: string) => T | undefined,
): T | undefined {
  for (const key of keys) {
    const value = read(attributes, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Whether `key` belongs to the family `<prefix>.<n>.…` (for instance `gen_ai.prompt.3.role`). */
export function isIndexedKey(prefix: string, key: string): boolean {
  // Checked against every attribute of every span: no string is built unless the prefix matches.
  if (!key.startsWith(prefix) || key.charCodeAt(prefix.length) !== dot) return false;
  const start = prefix.length + 1;
  const end = key.indexOf('.', start);
  if (end <= start) return false;
  for (let index = start; index < end; index += 1) {
    const code = key.charCodeAt(index);
    if (code < zero || code > nine) return false;
  }
  return true;
}

const dot = 0x2e;
const zero = 0x30;
const nine = 0x39;

/**
 * The members of the family `<prefix>.<n>.…` in index order, each as its own key-values with
 * `<prefix>.<n>.` removed from the keys: `gen_ai.prompt.0.role` becomes `role` in the first group.
 */
export function indexedGroups(attributes: readonly KeyValue[], prefix: string): KeyValue[][] {
  // Asked of every span for several families; most spans have none, and then nothing is built.
  let groups: Map<number, KeyValue[]> | undefined;
  for (const { key, value } of attributes) {
    if (!isIndexedKey(prefix, key)) continue;
    groups ??= new Map();
    const rest = key.slice(prefix.length + 1);
    const dot = rest.indexOf('.');
    const index = Number(rest.slice(0, dot));
    const group = groups.get(index) ?? [];
    group.push({ key: rest.slice(dot + 1), value });
    groups.set(index, group);
  }
  if (groups === undefined) return [];
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([, group]) => group);
}
