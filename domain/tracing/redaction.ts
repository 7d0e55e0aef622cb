// Credential removal (001, Limits: "credentials are removed from every span before storing;
// redacted_count counts the removed values"). Text goes through the detector table of
// credentials.ts; in JSON, a value under a key that names a credential is removed whole.
import {
  type CredentialDetector,
  credentialDetectors,
  hintedDetectors,
  isCredentialKey,
} from './credentials.ts';
import type { AnyValue, KeyValue } from './otlp.ts';
import type { JsonValue } from './span.ts';

/** What a removed value becomes; the key or label around it stays. */
export const redactedMarker = '[REDACTED]';

export interface Redacted<T> {
  value: T;
  /** Credential values removed: one per value, whatever its length. */
  count: number;
}

function applyDetector(
  { pattern, accept }: CredentialDetector,
  text: string,
): { text: string; count: number } {
  const pieces: string[] = [];
  let kept = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const groups = match.indices?.groups;
    const [start, end] = groups?.['value'] ?? groups?.['quoted'] ?? [0, 0];
    if (end === start || (accept !== undefined && !accept(text.slice(start, end), match))) {
      // Not a credential: look again from the next character, a real one may start inside.
      pattern.lastIndex = match.index + 1;
      continue;
    }
    pieces.push(text.slice(kept, start), redactedMarker);
    kept = end;
  }
  if (pieces.length === 0) return { text, count: 0 };
  pieces.push(text.slice(kept));
  return { text: pieces.join(''), count: pieces.length >> 1 };
}

/** The text with every credential the detectors find replaced by `[REDACTED]`. */
export function redactText(text: string): { text: string; count: number } {
  // No hint is shorter than three characters: most short values (ids, names, '') end here.
  if (text.length < 3) return { text, count: 0 };
  const hinted = hintedDetectors(text);
  if (hinted === 0) return { text, count: 0 };
  let count = 0;
  let result = text;
  // A removal leaves `[REDACTED]`, which holds no hint word, so a detector not hinted in the text
  // as it came is not hinted after another detector's removals either.
  for (let index = 0; index < credentialDetectors.length; index += 1) {
    if ((hinted & (1 << index)) === 0) continue;
    const detector = credentialDetectors[index]!;
    if (!detector.hint.test(result)) continue;
    const applied = applyDetector(detector, result);
    result = applied.text;
    count += applied.count;
  }
  return { text: result, count };
}

/** Whether a value under a credential key has something to remove (not null, false or empty). */
function holdsSecret(value: JsonValue): boolean {
  if (value === null || typeof value === 'boolean') return false;
  if (typeof value === 'string') return value !== '' && value !== redactedMarker;
  if (typeof value === 'number') return true;
  return Object.keys(value).length > 0;
}

/** A JSON value with credentials removed from its strings and under its credential keys. */
export function redactJson(value: JsonValue): Redacted<JsonValue> {
  if (typeof value === 'string') {
    const redacted = redactText(value);
    return { value: redacted.text, count: redacted.count };
  }
  if (value === null || typeof value !== 'object') return { value, count: 0 };
  let count = 0;
  const add = (redacted: Redacted<JsonValue>): JsonValue => {
    count += redacted.count;
    return redacted.value;
  };
  if (Array.isArray(value)) {
    const items = value.map((item) => add(redactJson(item)));
    return { value: items, count };
  }
  const entries = Object.entries(value).map(([key, item]) => [key, add(redactAttributeValue(key, item))]);
  return { value: Object.fromEntries(entries), count };
}

/**
 * One key/value pair (a span, event, link or resource attribute, or a JSON object's member): the
 * whole value goes when the key names a credential (`db.password`,
 * `http.request.header.authorization`), else its strings are searched.
 */
export function redactAttributeValue(key: string, value: JsonValue): Redacted<JsonValue> {
  if (isCredentialKey(key) && holdsSecret(value)) return { value: redactedMarker, count: 1 };
  return redactJson(value);
}

// The same rules over OTLP attributes as received, without a detour through JSON: the hot path
// redacts every attribute of every span, and most hold nothing to remove, so an unchanged list is
// returned as it came.

function holdsSecretValue(value: AnyValue): boolean {
  switch (value.kind) {
    case 'empty':
    case 'bool':
      return false;
    case 'string':
      return value.value !== '' && value.value !== redactedMarker;
    case 'bytes':
      return value.value.length > 0;
    case 'array':
    case 'kvlist':
      return value.values.length > 0;
    default:
      return true;
  }
}

function redactAnyValue(value: AnyValue): Redacted<AnyValue> {
  if (value.kind === 'string') {
    const redacted = redactText(value.value);
    return redacted.count === 0
      ? { value, count: 0 }
      : { value: { kind: 'string', value: redacted.text }, count: redacted.count };
  }
  if (value.kind === 'kvlist') {
    const redacted = redactKeyValues(value.values);
    return redacted.count === 0
      ? { value, count: 0 }
      : { value: { kind: 'kvlist', values: redacted.value }, count: redacted.count };
  }
  if (value.kind === 'array') {
    let count = 0;
    const values = value.values.map((item) => {
      const redacted = redactAnyValue(item);
      count += redacted.count;
      return redacted.value;
    });
    return count === 0 ? { value, count: 0 } : { value: { kind: 'array', values }, count };
  }
  return { value, count: 0 };
}

/** Key/value attributes with credentials removed, by the rules of `redactAttributeValue`. */
export function redactKeyValues(attributes: readonly KeyValue[]): Redacted<KeyValue[]> {
  let count = 0;
  let changed: KeyValue[] | undefined;
  attributes.forEach(({ key, value }, index) => {
    const redacted: Redacted<AnyValue> =
      isCredentialKey(key) && holdsSecretValue(value)
        ? { value: { kind: 'string', value: redactedMarker }, count: 1 }
        : redactAnyValue(value);
    if (redacted.count === 0) return;
    count += redacted.count;
    changed ??= [...attributes];
    changed[index] = { key, value: redacted.value };
  });
  return { value: changed ?? (attributes as KeyValue[]), count };
}
