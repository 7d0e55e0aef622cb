import { everyRoute, reasons as statusReasons } from '../error-responses.ts';
import { otlpErrors } from './errors.ts';

// The OTLP endpoint in /openapi.json. Its body is read as a stream in protobuf or JSON (plugin.ts),
// which the zod route schemas cannot describe, so the route is hidden from the generator and its
// path item is written here, as the spec (001, "Endpoints") reads: one request, two encodings,
// each answer in the request's encoding, and every status of the response table plus what the
// HTTP server answers on any route (api/error-responses.ts's `everyRoute`).

type JsonSchema = Record<string, unknown>;

const protobufBody: JsonSchema = { type: 'string', format: 'binary' };

/** ExportTraceServiceRequest in OTLP/JSON: the endpoint reads `resourceSpans` and ignores the rest. */
const jsonRequest: JsonSchema = {
  type: 'object',
  properties: { resourceSpans: { type: 'array', items: { type: 'object' } } },
};

/** ExportTraceServiceResponse: empty, or `partialSuccess` naming how many spans were refused and why. */
const jsonResponse: JsonSchema = {
  type: 'object',
  properties: {
    partialSuccess: {
      type: 'object',
      properties: {
        // An int64: a decimal string in OTLP/JSON.
        rejectedSpans: { type: ['string', 'integer'] },
        errorMessage: { type: 'string' },
      },
    },
  },
};

/** google.rpc.Status: the message is `<code>: <what to do>`. */
const jsonStatus: JsonSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'integer' },
    message: { type: 'string' },
    details: { type: 'array', items: { type: 'object' } },
  },
};

const inEitherEncoding = (json: JsonSchema) => ({
  'application/x-protobuf': { schema: protobufBody },
  'application/json': { schema: json },
});

/** Each error status and why, from the spec's response table (several codes may share one). */
function errorStatuses(): Record<string, { description: string }> {
  const reasons = new Map<number, string[]>();
  for (const [code, row] of Object.entries(otlpErrors))
    reasons.set(row.httpStatus, [...(reasons.get(row.httpStatus) ?? []), `\`${code}\`: ${row.remedy}`]);
  for (const status of everyRoute) reasons.set(status, [statusReasons[status]!]);
  return Object.fromEntries(
    [...reasons].map(([status, why]) => [String(status), { description: why.join(' ') }]),
  );
}

/** The path item of `POST /api/otlp/v1/traces`. */
export function otlpTracesPathItem(): Record<string, unknown> {
  const errors = Object.fromEntries(
    Object.entries(errorStatuses()).map(([status, { description }]) => [
      status,
      { description, content: inEitherEncoding(jsonStatus) },
    ]),
  );
  return {
    post: {
      tags: ['tracing'],
      summary: 'Export traces (OTLP/HTTP, spec 001)',
      description:
        'An ExportTraceServiceRequest in protobuf or JSON, optionally gzip (`Content-Encoding`); needs `traces:write` and an org in the tracing beta. Each answer is in the encoding of the request (JSON when its `Content-Type` was not understood).',
      requestBody: { required: true, content: inEitherEncoding(jsonRequest) },
      responses: {
        '200': {
          description:
            'Stored, or partly: `partialSuccess` says how many spans were refused and why (not to be retried).',
          content: inEitherEncoding(jsonResponse),
        },
        ...errors,
      },
    },
  };
}
