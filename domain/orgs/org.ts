import { Set as IdSet } from 'immutable';
import type { OrgEvent, Scope } from './events.ts';

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
}

export interface OrgState {
  orgId: string;
  name: string;
  createdAt: Date;
  tracingEnabled: boolean;
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
    case 'ChargePosted':
      if (state.chargeIds.has(event.chargeId)) return state;
      return {
        ...state,
        chargedCents: state.chargedCents + event.cents,
        chargeIds: state.chargeIds.add(event.chargeId),
      };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}
