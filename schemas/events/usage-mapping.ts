import { type InferenceEndpoint, inferenceEndpoints, type UsageRecorded } from '../../domain/usage/events.ts';

// UsageRecorded (domain) <-> orrery.usage.v1.UsageRecorded (protobuf).

export function usageToWire(event: UsageRecorded): Record<string, unknown> {
  const {
    eventId,
    orgId,
    requestId,
    keyId,
    model,
    endpoint,
    inputTokens,
    outputTokens,
    fallback,
    latencyMs,
  } = event;
  return {
    eventId,
    orgId,
    occurredAtMs: event.occurredAt.getTime(),
    requestId,
    keyId,
    model,
    endpoint,
    inputTokens,
    outputTokens,
    fallback,
    latencyMs,
  };
}

const isEndpoint = (value: unknown): value is InferenceEndpoint =>
  inferenceEndpoints.includes(value as InferenceEndpoint);

export function usageFromWire(wire: Record<string, unknown>): UsageRecorded | undefined {
  if (typeof wire.eventId !== 'string' || !wire.eventId || !isEndpoint(wire.endpoint)) return undefined;
  return {
    type: 'UsageRecorded',
    eventId: wire.eventId,
    orgId: String(wire.orgId ?? ''),
    occurredAt: new Date(Number(wire.occurredAtMs ?? 0)),
    requestId: String(wire.requestId ?? ''),
    keyId: String(wire.keyId ?? ''),
    model: String(wire.model ?? ''),
    endpoint: wire.endpoint,
    inputTokens: Number(wire.inputTokens ?? 0),
    outputTokens: Number(wire.outputTokens ?? 0),
    fallback: wire.fallback === true,
    latencyMs: Number(wire.latencyMs ?? 0),
  };
}
