import type { OrgEvent, Role, Scope } from '../../domain/orgs/events.ts';
import { roles, scopes } from '../../domain/orgs/events.ts';
import type { UsdPerMillion } from '../../domain/tracing/prices.ts';
import { text, type Wire, whole } from './wire.ts';

// OrgEvent (domain) <-> orrery.org.v1.OrgEvent (protobuf, camelCase as protobufjs reads it).
// Roles travel by enum name; a time other than the envelope's travels as int64 milliseconds.

const roleNames: Record<Role, string> = { owner: 'ROLE_OWNER', member: 'ROLE_MEMBER' };

export function orgEventToWire(event: OrgEvent): Record<string, unknown> {
  const envelope = { eventId: event.eventId, orgId: event.orgId, occurredAtMs: event.occurredAt.getTime() };
  switch (event.type) {
    case 'OrgCreated':
      return { ...envelope, orgCreated: { name: event.name } };
    case 'ApiKeyCreated': {
      const { keyId, name, keyHash, keyPrefix, createdBy } = event;
      return {
        ...envelope,
        apiKeyCreated: { keyId, name, keyHash, keyPrefix, scopes: event.scopes, createdBy },
      };
    }
    case 'ApiKeyRevoked':
      return { ...envelope, apiKeyRevoked: { keyId: event.keyId } };
    case 'CreditGranted': {
      const { grantId, amountCents, reason } = event;
      return { ...envelope, creditGranted: { grantId, amountCents, reason } };
    }
    case 'TracingEnabled':
      return { ...envelope, tracingEnabled: {} };
    case 'TracingRequested':
      return { ...envelope, tracingRequested: { personId: event.personId } };
    case 'ChargePosted': {
      const { chargeId, model, day, cents } = event;
      return { ...envelope, chargePosted: { chargeId, model, day, cents } };
    }
    case 'MemberAdded':
      return { ...envelope, memberAdded: { personId: event.personId, role: roleNames[event.role] } };
    case 'MemberRemoved':
      return { ...envelope, memberRemoved: { personId: event.personId } };
    case 'InvitationCreated': {
      const { invitationId, email, secretHash, invitedBy } = event;
      return {
        ...envelope,
        invitationCreated: {
          invitationId,
          email,
          role: roleNames[event.role],
          secretHash,
          invitedBy,
          expiresAtMs: event.expiresAt.getTime(),
        },
      };
    }
    case 'InvitationAccepted':
      return {
        ...envelope,
        invitationAccepted: { invitationId: event.invitationId, personId: event.personId },
      };
    case 'InvitationRevoked':
      return { ...envelope, invitationRevoked: { invitationId: event.invitationId } };
    case 'ModelPriceSet': {
      const { input, output, cached_input, reasoning } = event.usdPerMillion;
      return {
        ...envelope,
        modelPriceSet: {
          model: event.model,
          usdPerMillion: {
            input,
            output,
            ...(cached_input === undefined ? {} : { cachedInput: cached_input }),
            ...(reasoning === undefined ? {} : { reasoning }),
          },
          setBy: event.setBy,
        },
      };
    }
    case 'ModelPriceRemoved':
      return { ...envelope, modelPriceRemoved: { model: event.model, removedBy: event.removedBy } };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** A double as protobufjs reads it; absent reads as 0. */
const amount = (value: unknown) => (typeof value === 'number' ? value : 0);

/** Cached input and reasoning are proto3 `optional`: present only when sent. */
function usdPerMillionFromWire(wire: Wire): UsdPerMillion {
  return {
    input: amount(wire.input),
    output: amount(wire.output),
    ...(wire._cachedInput === 'cachedInput' ? { cached_input: amount(wire.cachedInput) } : {}),
    ...(wire._reasoning === 'reasoning' ? { reasoning: amount(wire.reasoning) } : {}),
  };
}

const isScope = (value: unknown): value is Scope => scopes.includes(value as Scope);
const roleOf = (wire: unknown): Role | undefined => roles.find((role) => roleNames[role] === wire);

/**
 * Decoded values come from `decodeValue` (oneofs set, longs and enums as strings). Unknown kinds
 * and unknown roles: undefined. A key from before `created_by` existed decodes with createdBy ''
 * (an operator's), which is what it was.
 */
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
        createdBy: text(body.createdBy),
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
    case 'tracingRequested':
      return { ...base, type: 'TracingRequested', personId: text(body.personId) };
    case 'chargePosted':
      return {
        ...base,
        type: 'ChargePosted',
        chargeId: text(body.chargeId),
        model: text(body.model),
        day: text(body.day),
        cents: whole(body.cents),
      };
    case 'memberAdded': {
      const role = roleOf(body.role);
      return role && { ...base, type: 'MemberAdded', personId: text(body.personId), role };
    }
    case 'memberRemoved':
      return { ...base, type: 'MemberRemoved', personId: text(body.personId) };
    case 'invitationCreated': {
      const role = roleOf(body.role);
      return (
        role && {
          ...base,
          type: 'InvitationCreated',
          invitationId: text(body.invitationId),
          email: text(body.email),
          role,
          secretHash: text(body.secretHash),
          invitedBy: text(body.invitedBy),
          expiresAt: new Date(whole(body.expiresAtMs)),
        }
      );
    }
    case 'invitationAccepted':
      return {
        ...base,
        type: 'InvitationAccepted',
        invitationId: text(body.invitationId),
        personId: text(body.personId),
      };
    case 'invitationRevoked':
      return { ...base, type: 'InvitationRevoked', invitationId: text(body.invitationId) };
    case 'modelPriceSet':
      return {
        ...base,
        type: 'ModelPriceSet',
        model: text(body.model),
        usdPerMillion: usdPerMillionFromWire((body.usdPerMillion ?? {}) as Wire),
        setBy: text(body.setBy),
      };
    case 'modelPriceRemoved':
      return { ...base, type: 'ModelPriceRemoved', model: text(body.model), removedBy: text(body.removedBy) };
    default:
      return undefined;
  }
}
