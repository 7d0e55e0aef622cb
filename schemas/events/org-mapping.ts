import type { OrgEvent, Scope } from '../../domain/orgs/events.ts';
import { scopes } from '../../domain/orgs/events.ts';

// OrgEvent (domain) <-> orrery.org.v1.OrgEvent (protobuf, camelCase as protobufjs reads it).

export function orgEventToWire(event: OrgEvent): Record<string, unknown> {
  const envelope = { eventId: event.eventId, orgId: event.orgId, occurredAtMs: event.occurredAt.getTime() };
  switch (event.type) {
    case 'OrgCreated':
      return { ...envelope, orgCreated: { name: event.name } };
    case 'ApiKeyCreated': {
      const { keyId, name, keyHash, keyPrefix } = event;
      return { ...envelope, apiKeyCreated: { keyId, name, keyHash, keyPrefix, scopes: event.scopes } };
    }
    case 'ApiKeyRevoked':
      return { ...envelope, apiKeyRevoked: { keyId: event.keyId } };
    case 'CreditGranted': {
      const { grantId, amountCents, reason } = event;
      return { ...envelope, creditGranted: { grantId, amountCents, reason } };
    }
    case 'TracingEnabled':
      return { ...envelope, tracingEnabled: {} };
    case 'ChargePosted': {
      const { chargeId, model, day, cents } = event;
      return { ...envelope, chargePosted: { chargeId, model, day, cents } };
    }
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

type Wire = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : '');
const whole = (value: unknown) => Number(value ?? 0);
const isScope = (value: unknown): value is Scope => scopes.includes(value as Scope);

/** Decoded values come from `decodeValue` (oneofs set, longs as strings). Unknown kinds: undefined. */
export function orgEventFromWire(wire: Wire): OrgEvent | undefined {
  const base = {
    eventId: text(wire.eventId),
    orgId: text(wire.orgId),
    occurredAt: new Date(whole(wire.occurredAtMs)),
  };
  const body = (wire[String(wire.event)] ?? {}) as Wire;
  switch (wire.event) {
    case 'orgCreated':
      return { ...base, type: 'OrgCreated', name: text(body.name) };
    case 'apiKeyCreated':
      return {
        ...base,
        type: 'ApiKeyCreated',
        keyId: text(body.keyId),
        name: text(body.name),
        keyHash: text(body.keyHash),
        keyPrefix: text(body.keyPrefix),
        scopes: (Array.isArray(body.scopes) ? body.scopes : []).filter(isScope),
      };
    case 'apiKeyRevoked':
      return { ...base, type: 'ApiKeyRevoked', keyId: text(body.keyId) };
    case 'creditGranted':
      return {
        ...base,
        type: 'CreditGranted',
        grantId: text(body.grantId),
        amountCents: whole(body.amountCents),
        reason: text(body.reason),
      };
    case 'tracingEnabled':
      return { ...base, type: 'TracingEnabled' };
    case 'chargePosted':
      return {
        ...base,
        type: 'ChargePosted',
        chargeId: text(body.chargeId),
        model: text(body.model),
        day: text(body.day),
        cents: whole(body.cents),
      };
    default:
      return undefined;
  }
}
