import { useQuery } from '@tanstack/react-query';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { Member } from '../api/types.ts';

// An org's keys, people and prices as server state, one query key each, shared by the pages that
// show them.

export const orgKeys = {
  keys: (orgId: string) => ['orgs', orgId, 'keys'] as const,
  people: (orgId: string) => ['orgs', orgId, 'people'] as const,
  prices: (orgId: string) => ['orgs', orgId, 'prices'] as const,
};

const inOrg = (orgId: string) => ({ params: { path: { orgId } } });

export function useKeys(orgId: string) {
  return useQuery({
    queryKey: orgKeys.keys(orgId),
    queryFn: async () => (await dataOf(api.GET('/api/orgs/{orgId}/keys', inOrg(orgId)))).data,
  });
}

export function usePeople(orgId: string) {
  return useQuery({
    queryKey: orgKeys.people(orgId),
    queryFn: async () => (await dataOf(api.GET('/api/orgs/{orgId}/members', inOrg(orgId)))).data,
  });
}

/** The prices in effect for the org, by model (the org is named in `Orrery-Org`, not the path). */
export function usePrices(orgId: string) {
  return useQuery({
    queryKey: orgKeys.prices(orgId),
    queryFn: async () => (await dataOf(api.GET('/api/prices', inOrgHeader(orgId)))).data,
  });
}

/** How a person's id reads: their name (or email) while they are a member. */
export function personNamer(members: readonly Member[] | undefined) {
  const byId = new Map(members?.map((member) => [member.person_id, member.name || member.email]));
  return (personId: string) => {
    if (personId === '') return 'an operator';
    return byId.get(personId) ?? (members ? 'a former member' : '…');
  };
}
