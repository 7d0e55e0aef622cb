import type { onRequestHookHandler } from 'fastify';
import { ApiError } from '../errors.ts';

// Before a session exists there is no CSRF token to check, so sign-up and login (login CSRF:
// a page logging a visitor into the attacker's account) refuse what a browser marks as sent by
// another site (Fetch Metadata, OWASP's CSRF cheat sheet). Clients that are not browsers send
// no such header and pass.
const allowed = new Set(['same-origin', 'none']);

export const refuseCrossSite: onRequestHookHandler = async (request) => {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && !allowed.has(site))
    throw new ApiError(
      'cross_site_request',
      403,
      'This request came from another site: sign up and log in from the dashboard itself.',
    );
};
