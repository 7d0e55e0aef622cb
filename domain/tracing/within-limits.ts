import { limits } from './limits.ts';
import type { AnyValue, KeyValue, OtlpEvent, OtlpLink } from './otlp.ts';

// The fast path: almost every span is far inside every limit, and limitSpan's work (parsing and
// re-serializing its JSON texts) is then the hot path's largest cost for nothing. These checks
// mirror limitSpan's rules on the span's parts before they become JSON; a span that passes them,
// and the whole-span limit, is what limitSpan would return unchanged (a unit test holds them to it).

/** Whether text fits in maxBytes of UTF-8; the length alone decides most (a UTF-16 unit is ≤ 3 bytes). */
export const fitsBytes = (text: string, maxBytes: number): boolean =>
  text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes;

/** Whether no string inside the value would be cut to stringBytes (bytes count as their base64). */
function valueFits(value: AnyValue): boolean {
  switch (value.kind) {
    case 'string':
      return fitsBytes(value.value, limits.stringBytes);
    case 'bytes':
      return Math.ceil(value.value.length / 3) * 4 <= limits.stringBytes;
    case 'array':
      return value.values.every(valueFits);
    case 'kvlist':
      return value.values.every((attribute) => valueFits(attribute.value));
    default:
      return true;
  }
}

const attributesFit = (attributes: readonly KeyValue[]): boolean =>
  attributes.length <= limits.attributesPerSpan &&
  attributes.every((attribute) => valueFits(attribute.value));

export interface SpanParts {
  name: string;
  /** The span's other plain strings: status message, model, session, user, scope, … */
  strings: readonly (string | null)[];
  attributes: readonly KeyValue[];
  events: readonly OtlpEvent[];
  links: readonly OtlpLink[];
  /** The resource attributes as stored JSON. */
  resourceAttributes: string;
}

function stringFits(text: string | null): boolean {
  return text === null || fitsBytes(text, limits.stringBytes);
}

/** Whether limitSpan would change nothing of these parts (the whole-span limit is the caller's). */
export function withinPerSpanLimits(parts: SpanParts): boolean {
  return (
    fitsBytes(parts.name, limits.spanNameBytes) &&
    parts.strings.every(stringFits) &&
    attributesFit(parts.attributes) &&
    parts.events.length <= limits.eventsPerSpan &&
    parts.events.every((event) => stringFits(event.name) && attributesFit(event.attributes)) &&
    parts.links.length <= limits.linksPerSpan &&
    parts.links.every(
      (link) =>
        stringFits(link.traceId) &&
        stringFits(link.spanId) &&
        stringFits(link.traceState) &&
        attributesFit(link.attributes),
    ) &&
    Buffer.byteLength(parts.resourceAttributes) <= limits.resourceAttributesBytes
  );
}
