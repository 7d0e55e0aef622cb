import { type UsageEndpoint, type UsageRecorded, usageEndpoints } from '../../domain/usage/events.ts';

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
    seconds = 0,
    personId = '',
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
    seconds,
    personId,
  };
}

const isEndpoint = (value: unknown): value is UsageEndpoint =>
  usageEndpoints.includes(value as UsageEndpoint);

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
    // Absent on the wire and in the domain alike for an inference request (proto3's zero).
    ...(Number(wire.seconds ?? 0) > 0 ? { seconds: Number(wire.seconds) } : {}),
    // Likewise for a key's request, a run's, and one recorded before people were named.
    ...(typeof wire.personId === 'string' && wire.personId !== '' ? { personId: wire.personId } : {}),
  };
}
