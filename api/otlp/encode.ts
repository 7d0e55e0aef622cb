// Response bodies of the OTLP endpoint, in the request's encoding (spec "Endpoints", Response):
// ExportTraceServiceResponse on success, google.rpc.Status on error.
import { loadOtlpRoot, otlpTypeNames } from '../../schemas/otlp/otlp-root.ts';

export type OtlpFormat = 'protobuf' | 'json';

/** The Content-Type of each format, for requests (spec "Endpoints", Request) and responses alike. */
export const otlpContentTypes: Record<OtlpFormat, string> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
};

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

export interface RpcStatus {
  /** A google.rpc.Code value. */
  code: number;
  message: string;
}

const root = loadOtlpRoot();
const responseType = root.lookupType(otlpTypeNames.response);
const statusType = root.lookupType(otlpTypeNames.status);

/**
 * ExportTraceServiceResponse: an empty message (`{}`) when nothing was refused. In JSON,
 * `rejectedSpans` is an int64 and so a decimal string, as the proto3 JSON mapping writes it; the
 * Collector's OTLP/JSON reader accepts strings and numbers alike, and the JavaScript exporters only
 * JSON.parse the body and log it.
 */
export function encodeExportResponse(format: OtlpFormat, partial: PartialSuccess | undefined): Buffer {
  if (format === 'json')
    return jsonBody(partial === undefined ? {} : { partialSuccess: partialJson(partial) });
  const message = responseType.fromObject(partial === undefined ? {} : { partialSuccess: partial });
  return Buffer.from(responseType.encode(message).finish());
}

/** google.rpc.Status without details (an empty repeated field is left out in both encodings). */
export function encodeStatus(format: OtlpFormat, status: RpcStatus): Buffer {
  if (format === 'json') return jsonBody({ code: status.code, message: status.message });
  return Buffer.from(statusType.encode(statusType.fromObject(status)).finish());
}

function partialJson(partial: PartialSuccess): { rejectedSpans: string; errorMessage: string } {
  return { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage };
}

function jsonBody(value: object): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}
