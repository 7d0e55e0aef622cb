import type { z } from 'zod';
import type { SandboxRouteName } from '../domain/sandboxes/routes.ts';
import { jsonErrorBody } from './errors.ts';
import { inferenceErrorBody } from './inference/error-format.ts';
import { oauthErrorBody } from './people/oauth-errors.ts';

// Every status a route can answer besides its success, for /openapi.json: one table by kind of
// route, read by each route's schema as `response: { 200: …, ...errorResponses(kind) }`, with its
// surface's error body (the zod schema its ErrorFormat writes). What the server answers before
// any route runs, whatever the route, is added here once.

/** The error body of each surface that has routes in the document (the OTLP route is hidden). */
const errorBodies = { json: jsonErrorBody, inference: inferenceErrorBody, oauth: oauthErrorBody } as const;
type Surface = keyof typeof errorBodies;

/** Why a status is answered, as the document says it. */
export const reasons: Record<number, string> = {
  400: 'RFC 6749: `error` says why (`authorization_pending`, `slow_down`, `access_denied`, `expired_token`, `invalid_grant`, `invalid_request`).',
  401: 'No live API key (or sandbox token) in `Authorization: Bearer …`, or no live session (or a wrong password).',
  402: "The org's credit is used up.",
  403: "The key lacks the scope, or the sandbox token the ability or origin; or the session's CSRF token is missing, or only an owner may do this.",
  404: 'Nothing with this id or name in the org (with a session: no org of yours by that `Orrery-Org`).',
  408: 'The request did not arrive whole in time (ORRERY_HTTP_*_TIMEOUT_MS); the connection is closed.',
  409: 'Not in a state for this: stopped, no desktop, holding secrets, or at its process limit; an email already taken; a login already decided; a run not finished, or a size not available; a template not ready, or one something stands on.',
  413: 'The JSON body is over 1 MiB.',
  414: 'A path parameter is over 100 characters.',
  410: 'The invitation was accepted, withdrawn, or has expired.',
  415: 'The body is not application/json.',
  422: 'A field, path or query parameter (or the `Orrery-Org` header of a session in several orgs) is missing or invalid: `param` names it.',
  426: 'Open this URL as a WebSocket.',
  429: 'Too many attempts: wait `Retry-After` seconds.',
  431: 'The request line and headers are over 16 KiB; the connection is closed.',
  502: 'The model did not answer; nothing was charged.',
  503: "Not available right now (keys still loading after a restart, a change not recorded, nothing deployed, no sandbox host with room, the sandbox's host unreachable): see `Retry-After` when sent.",
};

/** Answered by the HTTP server itself, on any route (api/http-errors.ts). */
export const everyRoute = [408, 431] as const;

/**
 * The statuses of each kind of route. Behind the auth hook: 401, and 503 while the keys load; 403
 * with a scope. A path parameter: 414 when over Fastify's 100 characters, 422 when not valid.
 */
export const routeKinds = {
  /** Sign-up: no session yet; a taken email is 409, a request from another site 403. */
  'people.signup': { surface: 'json', statuses: [403, 404, 409, 410, 413, 415, 422, 503] },
  /** Login: 401 for a wrong email or password, 429 after too many attempts. */
  'people.login': { surface: 'json', statuses: [401, 403, 413, 415, 422, 429, 503] },
  /** The command-line login's OAuth endpoints (RFC 8628): RFC 6749's errors, all 400. */
  'people.device': { surface: 'oauth', statuses: [400, 413, 415, 429] },
  /** RFC 7009 revocation: 200 whatever the token, 503 while the keys load. */
  'people.revoke': { surface: 'oauth', statuses: [400, 413, 415, 503] },
  /** An invitation link read by whoever holds it: no session. */
  'people.invitation': { surface: 'json', statuses: [404, 414, 422, 503] },
  /** Everything else of the people surface: a session, and its CSRF token to change anything. */
  people: { surface: 'json', statuses: [401, 403, 404, 409, 410, 413, 414, 415, 422, 503] },
  /** GET /api/me: any live key. */
  account: { surface: 'json', statuses: [401, 503] },
  /** GET /api/billing/summary: any live key, a query. */
  billing: { surface: 'json', statuses: [401, 404, 422, 503] },
  /** The trace and analytics lists: `traces:write`, a query. */
  'traces.list': { surface: 'json', statuses: [401, 403, 404, 422, 503] },
  /** One trace or span, and trace deletion, by id. */
  'traces.one': { surface: 'json', statuses: [401, 403, 404, 414, 422, 503] },
  /** POST /api/inference/:model/v1/titles and /previews (spec 000, Errors). */
  'inference.write': { surface: 'inference', statuses: [401, 402, 403, 404, 413, 414, 415, 422, 502, 503] },
  /** GET /api/inference/requests. */
  'inference.read': { surface: 'inference', statuses: [401, 403, 404, 422, 503] },
  /** GET /api/inference/models: no query. */
  'inference.models': { surface: 'inference', statuses: [401, 403, 404, 422, 503] },
  /** POST /api/sandboxes: a JSON body (an empty one too); a size no host holds 409, no room 503. */
  'sandboxes.create': { surface: 'json', statuses: [401, 403, 409, 413, 422, 503] },
  /** GET /api/sandboxes. */
  'sandboxes.list': { surface: 'json', statuses: [401, 403, 404, 422, 503] },
  /** A sandbox read as it is, whatever its state: GET /sandboxes/:id, the desktop's status. */
  'sandbox.read': { surface: 'json', statuses: [401, 403, 404, 414, 422, 503] },
  /** A call on a sandbox that needs it running (or its desktop), without a JSON body. */
  sandbox: { surface: 'json', statuses: [401, 403, 404, 409, 414, 422, 503] },
  /** A call on a sandbox with a JSON body: lifecycle, exec, tokens, the desktop's actions. */
  'sandbox.json': { surface: 'json', statuses: [401, 403, 404, 409, 413, 414, 422, 503] },
  /** GET /sandboxes/:id/screen, the WebSocket: a plain GET is 426. */
  'sandbox.screen': { surface: 'json', statuses: [401, 403, 404, 409, 414, 422, 426, 503] },
  /** POST /api/runs: a key only; refused before anything is placed (no credit 402, a size not sold here 409). */
  'runs.create': { surface: 'json', statuses: [401, 402, 403, 409, 415, 422, 503] },
  /** GET /api/runs: a key or a session, a query. */
  'runs.list': { surface: 'json', statuses: [401, 403, 404, 422, 503] },
  /** One run by id or name: read it, its output, or stop it. */
  'run.read': { surface: 'json', statuses: [401, 403, 404, 414, 422, 503] },
  /** GET /api/runs/:name/result: 409 while the run is active, 404 when it wrote none. */
  'run.result': { surface: 'json', statuses: [401, 403, 404, 409, 414, 422, 503] },
  /** POST /api/templates: a key only, a JSON body; a taken name 422, no host with room 503. */
  'templates.create': { surface: 'json', statuses: [401, 403, 413, 415, 422, 503] },
  /** GET /api/templates: a key or a session (422 for a person of several orgs without Orrery-Org). */
  'templates.list': { surface: 'json', statuses: [401, 403, 404, 422, 503] },
  /** One template by id or name: read it, or delete it (409 while building or in use). */
  'template.one': { surface: 'json', statuses: [401, 403, 404, 409, 414, 422, 503] },
  /** GET /api/prices: any live key or session (422 for a person of several orgs without Orrery-Org). */
  'prices.read': { surface: 'json', statuses: [401, 404, 422, 503] },
  /** PUT and DELETE /api/prices/{model}: a member's session and its CSRF token; no price of the org's own 404. */
  'prices.write': { surface: 'json', statuses: [401, 403, 404, 413, 415, 422, 503] },
  /** GET /api/catalog: any live key or session. */
  catalog: { surface: 'json', statuses: [401, 404, 422, 503] },
} as const satisfies Record<string, { surface: Surface; statuses: readonly number[] }>;

export type RouteKind = keyof typeof routeKinds;

/** The kind of each sandbox route (domain/sandboxes/routes.ts). */
export const sandboxRouteKinds: Record<SandboxRouteName, RouteKind> = {
  'sandboxes.create': 'sandboxes.create',
  'sandboxes.list': 'sandboxes.list',
  'sandboxes.get': 'sandbox.read',
  'sandbox.update': 'sandbox.json',
  'sandbox.destroy': 'sandbox.json',
  'sandbox.stop': 'sandbox.json',
  'sandbox.resume': 'sandbox.json',
  'sandbox.restart': 'sandbox.json',
  'sandbox.fork': 'sandbox.json',
  'sandbox.snapshot': 'sandbox.json',
  'sandbox.exec': 'sandbox.json',
  'sandbox.files.read': 'sandbox',
  // Its body is the file's bytes, any type; one over 64 MiB is 422 on `contents`, not 413.
  'sandbox.files.write': 'sandbox',
  'sandbox.tokens.create': 'sandbox.json',
  'desktop.status': 'sandbox.read',
  'desktop.action': 'sandbox.json',
  'desktop.input': 'sandbox.json',
  'desktop.screenshot': 'sandbox',
  'desktop.accessibility.tree': 'sandbox',
  'desktop.accessibility.act': 'sandbox.json',
  screen: 'sandbox.screen',
};

/** The error responses of a kind of route, for its schema's `response`. */
export function errorResponses(kind: RouteKind): Record<number, z.ZodType> {
  const { surface, statuses } = routeKinds[kind];
  const body = errorBodies[surface];
  return Object.fromEntries(
    [...statuses, ...everyRoute].map((status) => [status, body.describe(reasons[status] ?? '')]),
  );
}

/** The error responses of a sandbox route, for its schema's `response`. */
export const sandboxErrorResponses = (route: SandboxRouteName) => errorResponses(sandboxRouteKinds[route]);
