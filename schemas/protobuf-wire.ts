/**
 * The wire types of protobuf's encoding that our hand-written code meets: the OTLP decoder
 * (api/otlp/decode-protobuf.ts), the span events' writer (protobuf-writer.ts) and their
 * reader in the spans projection (projections/span-wire-fields.ts, spans-rowbinary.ts). fixed64
 * also carries doubles.
 */
export const wireType = { varint: 0, fixed64: 1, delimited: 2 } as const;
