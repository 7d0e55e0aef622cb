import { type OtlpFormat, otlpContentTypes } from './encode.ts';

const formatsByContentType = new Map<string, OtlpFormat>(
  Object.entries(otlpContentTypes).map(([format, type]) => [type, format as OtlpFormat]),
);

/** The body's format from a Content-Type header; parameters (`; charset=utf-8`) and case ignored. */
export function parseContentType(header: string | undefined): OtlpFormat | undefined {
  if (header === undefined) return undefined;
  const mediaType = header.split(';', 1)[0]!.trim().toLowerCase();
  return formatsByContentType.get(mediaType);
}
