import {
  invalidPriceKind,
  invalidPriceMessage,
  isModelName,
  modelKey,
  modelNameRule,
  samePrice,
} from '../tracing/org-prices.ts';
import type { UsdPerMillion } from '../tracing/prices.ts';
import type { OrgEvent, Scope } from './events.ts';
import { decideMembership, isMember, type MembershipCommand } from './membership.ts';
import type { MaybeOrg, OrgState } from './org.ts';
import { OrgCommandRefused } from './refusals.ts';

export { OrgCommandRefused } from './refusals.ts';

// Commands on an org, decided against its current state (Emmett's decider shape). Ids, secrets
// and time arrive on the command so the decision is pure.

interface CommandMeta {
  eventId: string;
  orgId: string;
  now: Date;
}

export type OrgCommand =
  /** With an `owner` (a person id), that person is the org's first member (sign-up). */
  | (CommandMeta & { type: 'CreateOrg'; name: string; owner?: string })
  | (CommandMeta & {
      type: 'CreateApiKey';
      keyId: string;
      name: string;
      keyHash: string;
      keyPrefix: string;
      scopes: Scope[];
      /** A person who is a member; '' for an operator. */
      createdBy: string;
    })
  | (CommandMeta & { type: 'RevokeApiKey'; keyId: string })
  | (CommandMeta & { type: 'GrantCredit'; grantId: string; amountCents: number; reason: string })
  | (CommandMeta & { type: 'EnableTracing' })
  | (CommandMeta & { type: 'RequestTracing'; personId: string })
  | (CommandMeta & { type: 'PostCharge'; chargeId: string; model: string; day: string; cents: number })
  /** `setBy`, `removedBy`: a person who is a member; '' for an operator. */
  | (CommandMeta & { type: 'SetModelPrice'; model: string; usdPerMillion: UsdPerMillion; setBy: string })
  | (CommandMeta & { type: 'RemoveModelPrice'; model: string; removedBy: string })
  | MembershipCommand;

const base = (command: CommandMeta) => ({
  eventId: command.eventId,
  orgId: command.orgId,
  occurredAt: command.now,
});

function requireOrg(state: MaybeOrg, orgId: string) {
  if (!state)
    throw new OrgCommandRefused('org_not_found', `No org ${orgId}; create it with "org create" first.`);
  return state;
}

function requireMemberOrOperator(org: OrgState, personId: string, action: string): void {
  if (personId !== '' && !isMember(org, personId))
    throw new OrgCommandRefused('not_member', `Only a member of the org may ${action}.`);
}

/** The price as the event records it: the kinds left out are absent, never undefined. */
function recordedPrice({ input, output, cached_input, reasoning }: UsdPerMillion): UsdPerMillion {
  return {
    input,
    output,
    ...(cached_input === undefined ? {} : { cached_input }),
    ...(reasoning === undefined ? {} : { reasoning }),
  };
}

export function decide(command: OrgCommand, state: MaybeOrg): OrgEvent[] {
  switch (command.type) {
    case 'CreateOrg':
      if (state) throw new OrgCommandRefused('org_exists', `Org ${command.orgId} already exists.`);
      return command.owner === undefined
        ? [{ ...base(command), type: 'OrgCreated', name: command.name }]
        : [
            { ...base(command), type: 'OrgCreated', name: command.name },
            { ...base(command), type: 'MemberAdded', personId: command.owner, role: 'owner' },
          ];
    case 'CreateApiKey': {
      const org = requireOrg(state, command.orgId);
      if (command.scopes.length === 0) {
        throw new OrgCommandRefused('invalid_request', 'A key needs at least one scope.');
      }
      if (command.createdBy !== '' && !isMember(org, command.createdBy))
        throw new OrgCommandRefused('not_member', 'Only a member of the org may create its keys.');
      const { keyId, name, keyHash, keyPrefix, scopes, createdBy } = command;
      return [
        { ...base(command), type: 'ApiKeyCreated', keyId, name, keyHash, keyPrefix, scopes, createdBy },
      ];
    }
    case 'RevokeApiKey': {
      const key = requireOrg(state, command.orgId).keys[command.keyId];
      if (!key)
        throw new OrgCommandRefused('key_not_found', `No key ${command.keyId} in org ${command.orgId}.`);
      return key.revoked ? [] : [{ ...base(command), type: 'ApiKeyRevoked', keyId: command.keyId }];
    }
    case 'GrantCredit': {
      const org = requireOrg(state, command.orgId);
      if (!Number.isSafeInteger(command.amountCents) || command.amountCents <= 0) {
        throw new OrgCommandRefused('invalid_request', 'Credit is a positive whole number of cents.');
      }
      if (org.grantIds.has(command.grantId)) return [];
      const { grantId, amountCents, reason } = command;
      return [{ ...base(command), type: 'CreditGranted', grantId, amountCents, reason }];
    }
    case 'EnableTracing':
      return requireOrg(state, command.orgId).tracingEnabled
        ? []
        : [{ ...base(command), type: 'TracingEnabled' }];
    case 'RequestTracing': {
      // Asked once: asking again, or in an org already in the beta, decides nothing.
      const org = requireOrg(state, command.orgId);
      if (!isMember(org, command.personId))
        throw new OrgCommandRefused(
          'not_member',
          'Only a member of the org may ask for it to join the tracing beta.',
        );
      if (org.tracingEnabled || org.tracingRequested) return [];
      return [{ ...base(command), type: 'TracingRequested', personId: command.personId }];
    }
    case 'PostCharge': {
      // A charge is posted even when it takes the balance below zero: the usage happened. The
      // only guard is idempotence: a chargeId already posted decides nothing.
      const org = requireOrg(state, command.orgId);
      if (!Number.isSafeInteger(command.cents) || command.cents <= 0) {
        throw new OrgCommandRefused('invalid_request', 'A charge is a positive whole number of cents.');
      }
      if (org.chargeIds.has(command.chargeId)) return [];
      const { chargeId, model, day, cents } = command;
      return [{ ...base(command), type: 'ChargePosted', chargeId, model, day, cents }];
    }
    case 'SetModelPrice': {
      // Setting the price the org already has, spelled the same, decides nothing.
      const org = requireOrg(state, command.orgId);
      requireMemberOrOperator(org, command.setBy, 'set its prices');
      if (!isModelName(command.model))
        throw new OrgCommandRefused('invalid_request', `Model: ${modelNameRule}.`);
      const invalid = invalidPriceKind(command.usdPerMillion);
      if (invalid) throw new OrgCommandRefused('invalid_request', invalidPriceMessage(invalid));
      const { model, usdPerMillion, setBy } = command;
      const current = org.prices.get(modelKey(model));
      if (current?.model === model && samePrice(current.usdPerMillion, usdPerMillion)) return [];
      return [
        {
          ...base(command),
          type: 'ModelPriceSet',
          model,
          usdPerMillion: recordedPrice(usdPerMillion),
          setBy,
        },
      ];
    }
    case 'RemoveModelPrice': {
      const org = requireOrg(state, command.orgId);
      requireMemberOrOperator(org, command.removedBy, 'remove its prices');
      const current = org.prices.get(modelKey(command.model));
      if (!current)
        throw new OrgCommandRefused(
          'price_not_found',
          `This org has no price of its own for ${JSON.stringify(command.model)}: GET /api/prices lists the prices in effect (a default price cannot be removed, only replaced).`,
        );
      return [
        { ...base(command), type: 'ModelPriceRemoved', model: current.model, removedBy: command.removedBy },
      ];
    }
    case 'AddMember':
    case 'InviteMember':
    case 'AcceptInvitation':
    case 'RevokeInvitation':
    case 'RemoveMember':
      return decideMembership(command, requireOrg(state, command.orgId));
    default: {
      const unhandled: never = command;
      return unhandled;
    }
  }
}
