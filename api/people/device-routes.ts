import { hash, randomBytes, randomInt } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OrgEvent } from '../../domain/orgs/events.ts';
import {
  decidePoll,
  deviceLoginTiming,
  formatUserCode,
  loginKeyScopes,
  userCodeAlphabet,
  userCodeLength,
} from '../../domain/people/device-login.ts';
import {
  deviceLoginByCode,
  insertDeviceLogin,
  markCollected,
  recordPoll,
  unmarkCollected,
} from '../../stores/device-logins.ts';
import { newApiKey } from '../auth/api-keys.ts';
import { errorResponses } from '../error-responses.ts';
import { ApiError } from '../errors.ts';
import { requestOrigin } from './answers.ts';
import { attemptLimiter } from './attempt-limits.ts';
import { commandMeta, type PeopleRouteDeps } from './commands.ts';
import { oauthError, useOauthConventions } from './oauth-errors.ts';

// The command-line login's server side, RFC 8628 (OAuth 2.0 device authorization grant): the CLI
// asks for a code (`/auth/device/code`), shows the user code and the dashboard's page, and polls
// `/auth/device/token`; a person who is logged in approves the code for one of their orgs
// (device-approval-routes.ts). The two OAuth endpoints take form or JSON bodies and answer errors
// in RFC 6749's shape, so any OAuth client library can drive them.

const tags = ['people'];
export const deviceGrantType = 'urn:ietf:params:oauth:grant-type:device_code';
const hashDeviceCode = (code: string) => hash('sha256', code, 'hex');

/**
 * The login's key as the org decider makes it. A person who left the org since approving is not
 * a member any more, and the decider makes no key for them: to the CLI, the login was denied.
 */
function decideLoginKey(decide: () => OrgEvent[]): OrgEvent[] {
  try {
    return decide();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_member')
      throw oauthError(
        'access_denied',
        'The person who approved this login is no longer a member of the org.',
      );
    throw error;
  }
}

/** What each unfinished poll says, for the CLI to show or act on. */
const pollMessages = {
  authorization_pending:
    'Waiting for a person to approve the code on the dashboard: poll again after the interval.',
  slow_down: 'Polled sooner than the interval: wait longer between polls (the interval grew by 5 seconds).',
  access_denied: 'The login was denied on the dashboard: start a new login if that was a mistake.',
  expired_token: 'The code expired before it was approved: start a new login.',
  invalid_grant: 'This device code was already used, or never issued: start a new login.',
} as const;

const codeBody = z.object({
  client_id: z.string().max(100).optional().describe('the client asking, shown to the person approving'),
  scope: z
    .string()
    .max(200)
    .optional()
    .describe('ignored: a login key holds traces:write and sandboxes:write'),
});
const tokenBody = z.object({
  grant_type: z.string().max(200),
  device_code: z.string().max(200),
  client_id: z.string().max(100).optional(),
});

const codeAnswer = z.object({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number().int(),
  interval: z.number().int(),
});
const tokenAnswer = z.object({
  access_token: z.string().describe('an org API key'),
  token_type: z.literal('Bearer'),
  scope: z.string(),
  org_id: z.string(),
  key_id: z.string(),
});

function newUserCode(): string {
  return Array.from(
    { length: userCodeLength },
    () => userCodeAlphabet[randomInt(userCodeAlphabet.length)],
  ).join('');
}

/** The two OAuth endpoints, in their own scope: form bodies and RFC 6749's error shape. */
export const deviceRoutes: FastifyPluginAsyncZod<PeopleRouteDeps> = async (app, deps) => {
  const { pool, commands, now } = deps;
  await useOauthConventions(app);
  const perAddress = attemptLimiter(app, {
    name: 'device-code',
    max: 10,
    windowMs: 60_000,
    subject: (request) => request.ip,
  });

  app.post(
    '/auth/device/code',
    {
      schema: {
        tags,
        summary: 'Start a command-line login (RFC 8628 device authorization request)',
        body: codeBody,
        response: { 200: codeAnswer, ...errorResponses('people.device') },
      },
    },
    async (request) => {
      const waitSeconds = await perAddress(request);
      if (waitSeconds !== undefined)
        throw new ApiError(
          'slow_down',
          429,
          `Too many logins started from here: wait ${waitSeconds} seconds.`,
        );
      const deviceCode = randomBytes(32).toString('base64url');
      const created = now();
      const { lifetimeSeconds, intervalSeconds } = deviceLoginTiming;
      const login = {
        clientName: request.body.client_id ?? 'orrery-cli',
        intervalSeconds,
        createdAt: created,
        expiresAt: new Date(created.getTime() + lifetimeSeconds * 1000),
      };
      // A user code already in use is drawn again (20^8 codes: a second draw is already rare).
      let userCode = newUserCode();
      while (!(await insertDeviceLogin(pool, hashDeviceCode(deviceCode), { ...login, userCode })))
        userCode = newUserCode();
      const verificationUri = `${requestOrigin(request)}/device`;
      return {
        device_code: deviceCode,
        user_code: formatUserCode(userCode),
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?code=${formatUserCode(userCode)}`,
        expires_in: lifetimeSeconds,
        interval: intervalSeconds,
      };
    },
  );

  app.post(
    '/auth/device/token',
    {
      schema: {
        tags,
        summary: 'Collect the key of an approved command-line login (RFC 8628 device access token request)',
        body: tokenBody,
        response: { 200: tokenAnswer, ...errorResponses('people.device') },
      },
    },
    async (request) => {
      if (request.body.grant_type !== deviceGrantType)
        throw oauthError('unsupported_grant_type', `grant_type must be ${deviceGrantType}.`);
      const deviceCodeHash = hashDeviceCode(request.body.device_code);
      const login = await deviceLoginByCode(pool, deviceCodeHash);
      if (!login) throw oauthError('invalid_grant', pollMessages.invalid_grant);
      const at = now();
      const outcome = decidePoll(login, at);
      if (
        outcome.kind === 'slow_down' ||
        outcome.kind === 'authorization_pending' ||
        outcome.kind === 'collect'
      )
        await recordPoll(
          pool,
          deviceCodeHash,
          at,
          outcome.kind === 'slow_down' ? outcome.intervalSeconds : login.intervalSeconds,
        );
      if (outcome.kind !== 'collect') throw oauthError(outcome.kind, pollMessages[outcome.kind]);
      const orgId = login.orgId!;
      const created = newApiKey(commandMeta(orgId, at), {
        name: `${login.clientName} login ${at.toISOString().slice(0, 10)}`,
        scopes: [...loginKeyScopes],
        createdBy: login.personId!,
      });
      const { keyId } = created.command;
      const keyCreated = decideLoginKey(() => commands.decideOrg(created.command));
      if (!(await markCollected(pool, deviceCodeHash, keyId)))
        throw oauthError('invalid_grant', pollMessages.invalid_grant);
      try {
        await commands.publishOrg(keyCreated);
      } catch (error) {
        await unmarkCollected(pool, deviceCodeHash);
        throw error;
      }
      return {
        access_token: created.key,
        token_type: 'Bearer' as const,
        scope: loginKeyScopes.join(' '),
        org_id: orgId,
        key_id: keyId,
      };
    },
  );
};
