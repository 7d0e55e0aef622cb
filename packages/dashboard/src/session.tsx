import { type QueryClient, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Navigate, Outlet, useLocation } from 'react-router';
import { ApiFailure, api, dataOf, rememberCsrfToken } from './api/client.ts';
import type { Session } from './api/types.ts';
import { ErrorPanel, Loading } from './components.tsx';
import { loginPath } from './paths.ts';

// The session as server state: GET /api/auth/session, or what sign-up and login answered; null
// when there is none. A page that needs one sits under <RequireSession>, which sends the person
// to log in and back. When any call answers 401 (api/client.ts), the session is forgotten and
// the guard does the same from wherever the person was.

export const sessionKey = ['session'] as const;

async function fetchSession(): Promise<Session | null> {
  try {
    const session = (await dataOf(api.GET('/api/auth/session'))).data;
    rememberCsrfToken(session.csrf_token);
    return session;
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 401) {
      rememberCsrfToken(undefined);
      return null;
    }
    throw error;
  }
}

/** The session's read: the hook's, and the one the guard's route starts as the navigation starts. */
export const sessionQuery = queryOptions({ queryKey: sessionKey, queryFn: fetchSession, staleTime: 30_000 });

export function useSession() {
  return useQuery(sessionQuery);
}

/** The session a sign-up or login answered: no need to ask for it again. */
export function storeSession(client: QueryClient, session: Session): void {
  rememberCsrfToken(session.csrf_token);
  client.setQueryData(sessionKey, session);
}

/** No session any more: every org's data is dropped with it. */
export function forgetSession(client: QueryClient): void {
  rememberCsrfToken(undefined);
  client.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionKey[0] });
  client.setQueryData(sessionKey, null);
}

/** Renders the pages under it only with a session; else the login page, told to come back. */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <Loading what="your session" />;
  if (session.isError && session.data === undefined) return <ErrorPanel error={session.error} />;
  if (!session.data) return <Navigate to={loginPath(location.pathname + location.search)} replace />;
  return <Outlet />;
}

/**
 * Logs out, then loads `then` afresh (the login page), which drops everything this page held; or,
 * with `then` null, stays on the page, which shows itself as to a visitor.
 */
export function useLogout(then: string | null = '/login') {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => dataOf(api.POST('/api/auth/logout')),
    // Ended or not, this browser forgets it (a 401 means it had already ended).
    onSettled: () => {
      if (then === null) forgetSession(client);
      else window.location.assign(then);
    },
  });
}
