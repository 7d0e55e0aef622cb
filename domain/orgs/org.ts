import { Set as IdSet } from 'immutable';
import { modelKey } from '../tracing/org-prices.ts';
import type { ModelPrice } from '../tracing/prices.ts';
import type { OrgEvent, Role, Scope } from './events.ts';

// An org as the decider sees it: folded from its events by `evolve`, the same function the API's
// in-memory directory uses (api/auth/org-directory.ts). The Postgres projection writes the same
// facts with SQL of its own (projections/org.ts).

export interface ApiKeyState {
  keyId: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
  scopes: Scope[];
  revoked: boolean;
  createdAt: Date;
  /** The person who created it; '' for an operator. */
  createdBy: string;
}

export interface MemberState {
  personId: string;
  role: Role;
  addedAt: Date;
}

export interface InvitationState {
  invitationId: string;
  email: string;
  role: Role;
  secretHash: string;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  /** Open until accepted or revoked; an open one past `expiresAt` can no longer be accepted. */
  status: 'open' | 'accepted' | 'revoked';
}

/** The org's own price for a model: the model as it was last set, when, and by whom. */
export interface OrgModelPrice extends ModelPrice {
  setAt: Date;
  /** The person who set it; '' for an operator. */
  setBy: string;
}

export interface OrgState {
  orgId: string;
  name: string;
  createdAt: Date;
  tracingEnabled: boolean;
  /** When a member first asked to join the tracing beta, and who; undefined until then. */
  tracingRequested?: { at: Date; by: string };
  creditGrantedCents: number;
  /**
   * The ids already counted, so a redelivered grant or charge counts once. Persistent sets (each
   * add shares the rest): the API folds an org's whole stream on every start, and copying an array
   * per event made that quadratic in the number of charges.
   */
  grantIds: IdSet<string>;
  /** Cents of every ChargePosted; the balance is domain/billing/balance.ts's rule. */
  chargedCents: number;
  chargeIds: IdSet<string>;
  keys: Record<string, ApiKeyState>;
  /** The people in the org now; a removed person is deleted from it. */
  members: Record<string, MemberState>;
  invitations: Record<string, InvitationState>;
  /**
   * The org's own prices, keyed by the model in lower case (`modelKey`): one per model, whatever
   * its case. A Map, not a Record: a model is named by the caller, and may be `constructor`.
   */
  prices: ReadonlyMap<string, OrgModelPrice>;
}

export type MaybeOrg = OrgState | undefined;

export function initialState(): MaybeOrg {
  return undefined;
}

export function evolve(state: MaybeOrg, event: OrgEvent): MaybeOrg {
  if (event.type === 'OrgCreated') {
    return (
      state ?? {
        orgId: event.orgId,
        name: event.name,
        createdAt: event.occurredAt,
        tracingEnabled: false,
        creditGrantedCents: 0,
        grantIds: IdSet<string>(),
        chargedCents: 0,
        chargeIds: IdSet<string>(),
        keys: {},
        members: {},
        invitations: {},
        prices: new Map(),
      }
    );
  }
  if (!state) return state;
  switch (event.type) {
    case 'ApiKeyCreated':
      return {
        ...state,
        keys: {
          ...state.keys,
          [event.keyId]: {
            keyId: event.keyId,
            name: event.name,
            keyHash: event.keyHash,
            keyPrefix: event.keyPrefix,
            scopes: event.scopes,
            revoked: false,
            createdAt: event.occurredAt,
            createdBy: event.createdBy,
          },
        },
      };
    case 'ApiKeyRevoked': {
      const key = state.keys[event.keyId];
      return key ? { ...state, keys: { ...state.keys, [event.keyId]: { ...key, revoked: true } } } : state;
    }
    case 'CreditGranted':
      if (state.grantIds.has(event.grantId)) return state;
      return {
        ...state,
        creditGrantedCents: state.creditGrantedCents + event.amountCents,
        grantIds: state.grantIds.add(event.grantId),
      };
    case 'TracingEnabled':
      return { ...state, tracingEnabled: true };
    case 'TracingRequested':
      return state.tracingRequested
        ? state
        : { ...state, tracingRequested: { at: event.occurredAt, by: event.personId } };
    case 'ChargePosted':
      if (state.chargeIds.has(event.chargeId)) return state;
      return {
        ...state,
        chargedCents: state.chargedCents + event.cents,
        chargeIds: state.chargeIds.add(event.chargeId),
      };
    case 'MemberAdded':
      return {
        ...state,
        members: {
          ...state.members,
          [event.personId]: { personId: event.personId, role: event.role, addedAt: event.occurredAt },
        },
      };
    case 'MemberRemoved': {
      const { [event.personId]: _removed, ...members } = state.members;
      return { ...state, members };
    }
    case 'InvitationCreated': {
      const { invitationId, email, role, secretHash, invitedBy, expiresAt } = event;
      const invitation: InvitationState = {
        invitationId,
        email,
        role,
        secretHash,
        invitedBy,
        createdAt: event.occurredAt,
        expiresAt,
        status: 'open',
      };
      return { ...state, invitations: { ...state.invitations, [invitationId]: invitation } };
    }
    case 'InvitationAccepted':
    case 'InvitationRevoked': {
      const invitation = state.invitations[event.invitationId];
      if (invitation?.status !== 'open') return state;
      const status = event.type === 'InvitationAccepted' ? 'accepted' : 'revoked';
      return {
        ...state,
        invitations: { ...state.invitations, [event.invitationId]: { ...invitation, status } },
      };
    }
    case 'ModelPriceSet': {
      const { model, usdPerMillion, setBy } = event;
      const price: OrgModelPrice = { model, usdPerMillion, setAt: event.occurredAt, setBy };
      return { ...state, prices: new Map(state.prices).set(modelKey(model), price) };
    }
    case 'ModelPriceRemoved': {
      const key = modelKey(event.model);
      if (!state.prices.has(key)) return state;
      const prices = new Map(state.prices);
      prices.delete(key);
      return { ...state, prices };
    }
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}
