// Where the dashboard sends a person, as pure functions of strings (tested in test/paths.unit.test.ts).

/**
 * Where to go after logging in: `next` when it is a path of this site, else home. A `next` of
 * `//evil.example` or `https://…` would leave the site (an open redirect), so it is refused.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}

/** The login page, told to come back to `here` (a path with its query). */
export function loginPath(here: string): string {
  return withNext('/login', here);
}

/** The sign-up page, told to go on to `here` once the account is made. */
export function signupPath(here: string): string {
  return withNext('/signup', here);
}

function withNext(page: string, next: string): string {
  return next === '/' ? page : `${page}?next=${encodeURIComponent(next)}`;
}

/** A page of an org: `orgPath('org_1', '/settings')` → `/orgs/org_1/settings`. */
export function orgPath(orgId: string, page = ''): string {
  return `/orgs/${encodeURIComponent(orgId)}${page}`;
}

/** A trace's page: `tracePath('org_1', 'ab12…')` → `/orgs/org_1/tracing/traces/ab12…`. */
export function tracePath(orgId: string, traceId: string): string {
  return orgPath(orgId, `/tracing/traces/${encodeURIComponent(traceId)}`);
}

/**
 * A session's page, the conversation of its traces: any text the instrumentation sent is an id,
 * so it is one path segment, encoded (`a/b c` → `/orgs/org_1/tracing/sessions/a%2Fb%20c`).
 */
export function sessionPath(orgId: string, sessionId: string): string {
  return orgPath(orgId, `/tracing/sessions/${encodeURIComponent(sessionId)}`);
}

/** A user's page, its sessions and traces, as `sessionPath` for a session. */
export function userPath(orgId: string, userId: string): string {
  return orgPath(orgId, `/tracing/users/${encodeURIComponent(userId)}`);
}

/** The same page in another org: `/orgs/a/settings/keys` → `/orgs/b/settings/keys`. */
export function inOrg(pathname: string, orgId: string): string {
  const org = orgPath(orgId);
  return /^\/orgs\/[^/]+/.test(pathname) ? pathname.replace(/^\/orgs\/[^/]+/, org) : `${org}/settings`;
}

/**
 * The form field an error's `param` names, of the fields a form has: the field itself, or the
 * field holding it (`scopes[0]` → `scopes`, `metadata.key` → `metadata`); undefined when the
 * form has no such field, so the message is shown for the whole form.
 */
export function fieldOf(param: string | undefined, fields: readonly string[]): string | undefined {
  if (!param) return undefined;
  return fields.find(
    (field) => param === field || param.startsWith(`${field}[`) || param.startsWith(`${field}.`),
  );
}
