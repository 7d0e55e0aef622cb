import { hash, randomBytes, randomInt } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isMember } from '../../domain/orgs/membership.ts';
import {
  decidePoll,
  deviceLoginTiming,
  formatUserCode,
  loginKeyScopes,
  parseUserCode,
  userCodeAlphabet,
  userCodeLength,
} from '../../domain/people/device-login.ts';
import { newId } from '../../platform/ids.ts';
import type { PgPool } from '../../platform/postgres.ts';
import {
  decideDeviceLogin,
  deviceLoginByCode,
  deviceLoginByUserCode,
  insertDeviceLogin,
  markCollected,
  recordPoll,
  unmarkCollected,
} from '../../stores/device-logins.ts';
import { hashApiKey, newApiKey } from '../auth/api-keys.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import { errorResponses } from '../error-responses.ts';
import { ApiError, errorHandler, jsonErrorFormat, KeysNotLoaded } from '../errors.ts';
import { requestPartValidator } from '../request-validation.ts';
import { commandMeta, type PeopleCommands } from './commands.ts';
import { oauthError, oauthErrorHandler } from './oauth-errors.ts';

// The command-line login's server side, RFC 8628 (OAuth 2.0 device authorization grant): the CLI
// asks for a code (`/auth/device/code`), shows the user code and the dashboard's page, and polls
// `/auth/device/token`; a person who is logged in approves the code for one of their orgs. The
// two OAuth endpoints take form or JSON bodies and answer errors in RFC 6749's shape, so any
// OAuth client library can drive them; the approval routes are the dashboard's, in ours.

export interface DeviceRouteDeps {
  pool: PgPool;
  directory: OrgDirectory;
  commands: PeopleCommands;
  now: () => Date;
  /** Whether the directory has read the org stream to its end (else a key cannot be judged). */
  keysLoaded: () => boolean;
}

const tags = ['people'];
export const deviceGrantType = 'urn:ietf:params:oauth:grant-type:device_code';
const hashDeviceCode = (code: string) => hash('sha256', code, 'hex');

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
const revokeBody = z.object({
  token: z.string().max(200).describe('the API key to revoke'),
  token_type_hint: z.string().max(50).optional().describe('ignored: the token is an API key'),
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

const userCodeParams = z.object({ userCode: z.string().max(20) });
const loginAnswer = z.object({
  data: z.object({
    user_code: z.string(),
    client_name: z.string(),
    status: z.enum(['pending', 'approved', 'denied', 'collected']),
    expires_at: z.string(),
  }),
});

function newUserCode(): string {
  return Array.from(
    { length: userCodeLength },
    () => userCodeAlphabet[randomInt(userCodeAlphabet.length)],
  ).join('');
}

const unknownCode = () =>
  new ApiError(
    'device_code_not_found',
    404,
    'No login with this code: check it against the one your terminal shows.',
    'userCode',
  );

/** The two OAuth endpoints, in their own scope: form bodies and RFC 6749's error shape. */
const oauthEndpoints: FastifyPluginAsyncZod<DeviceRouteDeps> = async (app, deps) => {
  const { pool, directory, commands, now } = deps;
  await app.register(formbody);
  app.setErrorHandler(oauthErrorHandler);
  // RFC 6749 §5.2: a malformed request is 400 `invalid_request`, not the JSON surfaces' 422.
  app.setValidatorCompiler(requestPartValidator((refused) => oauthError('invalid_request', refused.message)));
  const perAddress = app.createRateLimit({
    max: 10,
    timeWindow: 60_000,
    keyGenerator: (r) => `device-code:${r.ip}`,
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
      const limit = await perAddress(request);
      if (!limit.isAllowed && limit.isExceeded)
        throw new ApiError(
          'slow_down',
          429,
          `Too many logins started from here: wait ${limit.ttlInSeconds} seconds.`,
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
      const verificationUri = `${request.protocol}://${request.host}/device`;
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
      const keyId = newId('key');
      if (!(await markCollected(pool, deviceCodeHash, keyId)))
        throw oauthError('invalid_grant', pollMessages.invalid_grant);
      const orgId = login.orgId!;
      const personId = login.personId!;
      // The person may have left the org since approving: then no key.
      const org = directory.org(orgId);
      if (!org || !isMember(org, personId))
        throw oauthError(
          'access_denied',
          'The person who approved this login is no longer a member of the org.',
        );
      const created = newApiKey();
      try {
        await commands.org({
          ...commandMeta(orgId, at),
          type: 'CreateApiKey',
          keyId,
          name: `${login.clientName} login ${at.toISOString().slice(0, 10)}`,
          keyHash: created.keyHash,
          keyPrefix: created.keyPrefix,
          scopes: [...loginKeyScopes],
          createdBy: personId,
        });
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

/**
 * RFC 7009 token revocation, for the command-line tool's `logout`: a key revokes itself (holding
 * it is the proof). 200 whatever the token was, as the RFC says, so the answer tells nothing
 * about other keys; a key the API cannot judge yet (just restarted) is 503, never a silent 200.
 */
const revocation: FastifyPluginAsyncZod<DeviceRouteDeps> = async (app, deps) => {
  const { directory, commands, now, keysLoaded } = deps;
  await app.register(formbody);
  app.setErrorHandler(oauthErrorHandler);
  app.setValidatorCompiler(requestPartValidator((refused) => oauthError('invalid_request', refused.message)));
  app.post(
    '/auth/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke an API key with the key itself (RFC 7009): the command-line logout',
        body: revokeBody,
        response: { 200: z.object({}), ...errorResponses('people.revoke') },
      },
    },
    async (request) => {
      if (!keysLoaded()) throw new KeysNotLoaded();
      const principal = directory.principal(hashApiKey(request.body.token));
      if (principal)
        await commands.org({
          ...commandMeta(principal.orgId, now()),
          type: 'RevokeApiKey',
          keyId: principal.keyId,
        });
      return {};
    },
  );
};

/** The dashboard's side: show a code's login, approve it for an org, or deny it. */
const approvalRoutes: FastifyPluginAsyncZod<DeviceRouteDeps> = async (app, deps) => {
  const { pool, directory, now } = deps;
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  const session = app.requireSession();
  const loginOf = async (typed: string) => {
    const userCode = parseUserCode(typed);
    const login = userCode && (await deviceLoginByUserCode(pool, userCode));
    if (!login) throw unknownCode();
    return login;
  };
  const answer = (login: Awaited<ReturnType<typeof loginOf>>) => ({
    data: {
      user_code: formatUserCode(login.userCode),
      client_name: login.clientName,
      status: login.status,
      expires_at: login.expiresAt.toISOString(),
    },
  });
  const notPending = () =>
    new ApiError(
      'device_login_closed',
      409,
      'This login was already decided, or it expired: start a new one in the terminal.',
    );

  app.get(
    '/auth/device/:userCode',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'A command-line login waiting for approval',
        params: userCodeParams,
        response: { 200: loginAnswer, ...errorResponses('people') },
      },
    },
    async (request) => answer(await loginOf(request.params.userCode)),
  );

  app.post(
    '/auth/device/:userCode/approve',
    {
      onRequest: session,
      schema: {
        tags,
        summary:
          'Approve a command-line login for one of your orgs: the CLI gets a key with traces:write and sandboxes:write',
        params: userCodeParams,
        body: z.strictObject({ org_id: z.string().max(100) }),
        response: { 200: loginAnswer, ...errorResponses('people') },
      },
    },
    async (request) => {
      const login = await loginOf(request.params.userCode);
      const personId = request.person!.personId;
      const org = directory.org(request.body.org_id);
      if (!org || !isMember(org, personId))
        throw new ApiError(
          'org_not_found',
          404,
          'You are not a member of this org: pick one of yours.',
          'org_id',
        );
      if (
        !(await decideDeviceLogin(
          pool,
          login.userCode,
          { status: 'approved', orgId: org.orgId, personId },
          now(),
        ))
      )
        throw notPending();
      return answer(await loginOf(login.userCode));
    },
  );

  app.post(
    '/auth/device/:userCode/deny',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Deny a command-line login',
        params: userCodeParams,
        response: { 200: loginAnswer, ...errorResponses('people') },
      },
    },
    async (request) => {
      const login = await loginOf(request.params.userCode);
      if (
        !(await decideDeviceLogin(
          pool,
          login.userCode,
          { status: 'denied', personId: request.person!.personId },
          now(),
        ))
      )
        throw notPending();
      return answer(await loginOf(login.userCode));
    },
  );
};

export const deviceRoutes: FastifyPluginAsyncZod<DeviceRouteDeps> = async (app, deps) => {
  await app.register(oauthEndpoints, deps);
  await app.register(revocation, deps);
  await app.register(approvalRoutes, deps);
};
