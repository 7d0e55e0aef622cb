import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatUserCode, parseUserCode } from '../../domain/people/device-login.ts';
import { decideDeviceLogin, deviceLoginByUserCode } from '../../stores/device-logins.ts';
import { errorResponses } from '../error-responses.ts';
import { ApiError, errorHandler, jsonErrorFormat } from '../errors.ts';
import type { PeopleRouteDeps } from './commands.ts';

// The dashboard's side of the command-line login (RFC 8628's verification page, `/device`): a
// logged-in person looks up the code their terminal shows, and approves it for one of their orgs
// or denies it. The CLI's own endpoints are device-routes.ts.

const tags = ['people'];

const userCodeParams = z.object({ userCode: z.string().max(20) });
const loginAnswer = z.object({
  data: z.object({
    user_code: z.string(),
    client_name: z.string(),
    status: z.enum(['pending', 'approved', 'denied', 'collected']),
    expires_at: z.string(),
  }),
});

const unknownCode = () =>
  new ApiError(
    'device_code_not_found',
    404,
    'No login with this code: check it against the one your terminal shows.',
    'userCode',
  );

/** The dashboard's side: show a code's login, approve it for an org, or deny it. */
export const deviceApprovalRoutes: FastifyPluginAsyncZod<PeopleRouteDeps> = async (app, deps) => {
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
      const org = directory.memberOrg(request.body.org_id, personId);
      if (!org)
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
