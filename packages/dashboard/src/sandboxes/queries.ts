import { useQuery } from '@tanstack/react-query';
import { api, dataOf, inOrgHeader } from '../api/client.ts';

// The org's sandboxes as server state; a sandbox's page reads it again every few seconds, since
// its status and desktop change from elsewhere (a program with a key).

export function useSandboxes(orgId: string, all: boolean) {
  return useQuery({
    queryKey: ['orgs', orgId, 'sandboxes', { all }],
    queryFn: async () =>
      (
        await dataOf(
          api.GET('/api/sandboxes', { params: { query: all ? { all: 'true' } : {} }, ...inOrgHeader(orgId) }),
        )
      ).data,
  });
}

export const sandboxKey = (orgId: string, id: string) => ['orgs', orgId, 'sandbox', id];

export function useSandbox(orgId: string, id: string) {
  return useQuery({
    queryKey: sandboxKey(orgId, id),
    queryFn: async () =>
      (await dataOf(api.GET('/api/sandboxes/{id}', { params: { path: { id } }, ...inOrgHeader(orgId) })))
        .data,
    refetchInterval: 5_000,
  });
}
