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

export const templatesKey = (orgId: string) => ['orgs', orgId, 'templates'];

/** The org's templates, read again every few seconds while one builds (a build takes seconds to minutes). */
export function useTemplates(orgId: string) {
  return useQuery({
    queryKey: templatesKey(orgId),
    queryFn: async () => (await dataOf(api.GET('/api/templates', inOrgHeader(orgId)))).data,
    refetchInterval: (query) =>
      query.state.data?.some((template) => template.status === 'building') ? 2_000 : false,
  });
}

/** One template (a sandbox's page names the one it was made from). */
export function useTemplate(orgId: string, id: string | null) {
  return useQuery({
    queryKey: [...templatesKey(orgId), id],
    enabled: id !== null,
    queryFn: async () =>
      (
        await dataOf(
          api.GET('/api/templates/{id}', { params: { path: { id: id ?? '' } }, ...inOrgHeader(orgId) }),
        )
      ).data,
    retry: false,
  });
}
