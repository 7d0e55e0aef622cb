// The vendored opentelemetry-proto and google.rpc schemas as one protobufjs Root. The server uses it
// to encode its answers; tests use it to encode requests the way an exporter would.
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const schemaDir = fileURLToPath(new URL('./', import.meta.url));

const entryFiles = ['opentelemetry/proto/collector/trace/v1/trace_service.proto', 'google/rpc/status.proto'];

/** Imports in these files are relative to this folder (protoc's include path), not to the importing file. */
export function loadOtlpRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith(schemaDir) ? target : schemaDir + target);
  return root.loadSync(entryFiles, { keepCase: false });
}

export const otlpTypeNames = {
  request: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
  response: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
  status: 'google.rpc.Status',
} as const;
