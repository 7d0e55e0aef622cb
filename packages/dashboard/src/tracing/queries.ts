import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { SessionQuery, SpanOutline, TracesQuery, UserQuery } from '../api/types.ts';

// Tracing's reads as server state: the org (its beta status), the trace list, a trace, a span, a
// session and a user, and the analytics, each with the org in `Orrery-Org` (the org routes name it in the path).

export const tracingKeys = {
  org: (orgId: string) => ['orgs', orgId, 'detail'] as const,
  traces: (orgId: string, query: TracesQuery) => ['orgs', orgId, 'traces', query] as const,
  trace: (orgId: string, traceId: string) => ['orgs', orgId, 'trace', traceId] as const,
  span: (orgId: string, traceId: string, spanId: string) => ['orgs', orgId, 'span', traceId, spanId] as const,
  session: (orgId: string, sessionId: string, query: SessionQuery) =>
    ['orgs', orgId, 'session', sessionId, query] as const,
  user: (orgId: string, userId: string, query: UserQuery) => ['orgs', orgId, 'user', userId, query] as const,
  analytics: (orgId: string, what: string, from?: string) =>
    ['orgs', orgId, 'analytics', what, from] as const,
};

export function useOrgDetail(orgId: string) {
  return useQuery({
    queryKey: tracingKeys.org(orgId),
    queryFn: async () => (await dataOf(api.GET('/api/orgs/{orgId}', { params: { path: { orgId } } }))).data,
  });
}

/** How often a live trace list reads its first page again. */
export const liveEveryMs = 5_000;

/** A page of the trace list; `live`, the first page is read again every few seconds. */
export function useTraces(orgId: string, query: TracesQuery, live = false) {
  return useQuery({
    queryKey: tracingKeys.traces(orgId, query),
    queryFn: () => dataOf(api.GET('/api/traces', { params: { query }, ...inOrgHeader(orgId) })),
    placeholderData: keepPreviousData,
    refetchInterval: live && !query.cursor ? liveEveryMs : false,
  });
}

/**
 * A trace in outline: its totals and its span tree as the page draws it. Its route starts it as the navigation starts, beside the page's code and the
 * session (routes.tsx); the page then reads what that fetched, not a second copy, for a while.
 */
export function traceQuery(orgId: string, traceId: string) {
  return queryOptions({
    queryKey: tracingKeys.trace(orgId, traceId),
    staleTime: 10_000,
    queryFn: async () => {
      const { data } = await dataOf(
        api.GET('/api/traces/{traceId}/outline', { params: { path: { traceId } }, ...inOrgHeader(orgId) }),
      );
      // The document types children loosely (no recursive schema); the API sends outline nodes.
      return { ...data, spans: data.spans as SpanOutline[] };
    },
  });
}

export function useTrace(orgId: string, traceId: string) {
  return useQuery(traceQuery(orgId, traceId));
}

export function useSpan(orgId: string, traceId: string, spanId: string | null) {
  return useQuery({
    queryKey: tracingKeys.span(orgId, traceId, spanId ?? ''),
    enabled: spanId !== null,
    queryFn: async () =>
      (
        await dataOf(
          api.GET('/api/traces/{traceId}/spans/{spanId}', {
            params: { path: { traceId, spanId: spanId ?? '' } },
            ...inOrgHeader(orgId),
          }),
        )
      ).data,
  });
}

/** A page of a session's traces; the page before stays on screen while the next loads. */
export function useSession(orgId: string, sessionId: string, query: SessionQuery) {
  return useQuery({
    queryKey: tracingKeys.session(orgId, sessionId, query),
    queryFn: () =>
      dataOf(
        api.GET('/api/sessions/{sessionId}', {
          params: { path: { sessionId }, query },
          ...inOrgHeader(orgId),
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** A user, with a page of its sessions. */
export function useUser(orgId: string, userId: string, query: UserQuery) {
  return useQuery({
    queryKey: tracingKeys.user(orgId, userId, query),
    queryFn: () =>
      dataOf(api.GET('/api/users/{userId}', { params: { path: { userId }, query }, ...inOrgHeader(orgId) })),
    placeholderData: keepPreviousData,
  });
}

/** The analytics from `from` (the API's default, 7 days, without it) to now. */
export function useAnalytics(orgId: string, from?: string) {
  const options = { params: { query: from ? { from } : {} }, ...inOrgHeader(orgId) };
  const usage = useQuery({
    queryKey: tracingKeys.analytics(orgId, 'usage', from),
    queryFn: async () => (await dataOf(api.GET('/api/analytics/usage', options))).data,
    placeholderData: keepPreviousData,
  });
  const latency = useQuery({
    queryKey: tracingKeys.analytics(orgId, 'latency', from),
    queryFn: async () => (await dataOf(api.GET('/api/analytics/latency', options))).data,
    placeholderData: keepPreviousData,
  });
  const errors = useQuery({
    queryKey: tracingKeys.analytics(orgId, 'errors', from),
    queryFn: async () => (await dataOf(api.GET('/api/analytics/errors', options))).data,
    placeholderData: keepPreviousData,
  });
  return { usage, latency, errors };
}
