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
  grantIds: string[];
  /** Cents of every ChargePosted; the balance is granted − charged (domain/billing). */
  chargedCents: number;
  chargeIds: string[];
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
        grantIds: [],
        chargedCents: 0,
        chargeIds: [],
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
      if (state.grantIds.includes(event.grantId)) return state;
      return {
        ...state,
        creditGrantedCents: state.creditGrantedCents + event.amountCents,
        grantIds: [...state.grantIds, event.grantId],
      };
    case 'TracingEnabled':
      return { ...state, tracingEnabled: true };
    case 'ChargePosted':
      if (state.chargeIds.includes(event.chargeId)) return state;
      return {
        ...state,
        chargedCents: state.chargedCents + event.cents,
        chargeIds: [...state.chargeIds, event.chargeId],
      };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}
