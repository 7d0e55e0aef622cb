import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  emailField,
  loginAttemptLimits,
  passwordField,
  personName,
} from '../../domain/people/credentials.ts';
import type { PersonEvent } from '../../domain/people/events.ts';
import { newId } from '../../platform/ids.ts';
import { claimEmail, personByEmail, personById, releaseEmail } from '../../stores/people.ts';
import { errorResponses } from '../error-responses.ts';
import { ApiError, Unavailable } from '../errors.ts';
import { sessionAnswer, sessionData } from './answers.ts';
import { attemptLimiter } from './attempt-limits.ts';
import { commandMeta, type PeopleRouteDeps, personCommandMeta } from './commands.ts';
import { refuseCrossSite } from './cross-site.ts';
import { decideAcceptance } from './invitations.ts';
import { hashPassword, passwordMatches } from './passwords.ts';

// Sign-up, login, logout and the session itself (issue 15): the dashboard's way in.

const tags = ['people'];

const signupBody = z.strictObject({
  email: emailField,
  password: passwordField,
  name: personName,
  org_name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('the new org\'s name; left out: "<name>\'s org"'),
  invitation: z.string().optional().describe('an invitation token: join that org instead of creating one'),
});

const loginBody = z.strictObject({ email: emailField, password: z.string().max(1024) });

export const emailTaken = () =>
  new ApiError('email_taken', 409, 'An account with this email exists: log in instead.', 'email');

const wrongCredentials = () =>
  new ApiError('invalid_credentials', 401, 'The email or the password is wrong: check both and try again.');

const tooManyAttempts = (retryAfterSeconds: number) =>
  new ApiError(
    'too_many_attempts',
    429,
    `Too many login attempts: wait ${retryAfterSeconds} seconds and try again.`,
    undefined,
    { 'retry-after': String(retryAfterSeconds) },
  );

export const accountRoutes: FastifyPluginAsyncZod<PeopleRouteDeps> = async (app, deps) => {
  const { pool, directory, commands, now } = deps;

  // Two windows of one limiter library, one per address and one per account, so that spreading
  // attempts over many addresses does not help against one account.
  const perAddress = attemptLimiter(app, {
    name: 'login-address',
    ...loginAttemptLimits.perAddress,
    subject: (request) => request.ip,
  });
  const perAccount = attemptLimiter(app, {
    name: 'login-account',
    ...loginAttemptLimits.perAccount,
    subject: (request) => (request.body as { email: string }).email,
  });

  app.post(
    '/auth/signup',
    {
      onRequest: refuseCrossSite,
      schema: {
        tags,
        summary: 'Sign up: a person, their own org (or the invited one), and a session',
        body: signupBody,
        response: { 201: sessionAnswer, ...errorResponses('people.signup') },
      },
    },
    async (request, reply) => {
      const { email, password, name, org_name, invitation } = request.body;
      const personId = newId('person');
      // Decided before anything is recorded: a bad invitation leaves no account behind.
      const joined =
        invitation === undefined
          ? undefined
          : decideAcceptance(commands, invitation, { personId, email }, now());
      if (!(await claimEmail(pool, email, personId))) throw emailTaken();
      let signedUp: PersonEvent[];
      try {
        const passwordHash = await hashPassword(password);
        signedUp = await commands.person({
          ...personCommandMeta(personId, now()),
          type: 'SignUp',
          email,
          name,
          passwordHash,
        });
      } catch (error) {
        await releaseEmail(pool, email, personId);
        throw error;
      }
      if (joined) await commands.publishOrg(joined);
      else
        await commands.org({
          ...commandMeta(newId('org'), now()),
          type: 'CreateOrg',
          name: org_name ?? `${name}'s org`,
          owner: personId,
        });
      // The dashboard lists the org's members (this person by name) as soon as it has the answer.
      await commands.untilPersonShown(signedUp);
      const csrfToken = await app.sessions.start(request, reply, personId);
      return reply.status(201).send({ data: sessionData(directory, { personId, email, name }, csrfToken) });
    },
  );

  app.post(
    '/auth/login',
    {
      onRequest: refuseCrossSite,
      schema: {
        tags,
        summary: 'Log in: a session cookie',
        body: loginBody,
        response: { 200: sessionAnswer, ...errorResponses('people.login') },
      },
    },
    async (request, reply) => {
      for (const limiter of [perAddress, perAccount]) {
        const waitSeconds = await limiter(request);
        if (waitSeconds !== undefined) throw tooManyAttempts(waitSeconds);
      }
      const { email, password } = request.body;
      const person = await personByEmail(pool, email);
      if (!(await passwordMatches(person?.passwordHash, password)) || !person) throw wrongCredentials();
      const csrfToken = await app.sessions.start(request, reply, person.personId);
      return { data: sessionData(directory, person, csrfToken) };
    },
  );

  app.post(
    '/auth/logout',
    {
      onRequest: app.requireSession(),
      schema: {
        tags,
        summary: 'Log out: ends the session',
        response: { 204: z.null(), ...errorResponses('people') },
      },
    },
    async (request, reply) => {
      await app.sessions.end(request, reply);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/auth/session',
    {
      onRequest: app.requireSession(),
      schema: {
        tags,
        summary: 'The session: who is logged in, their orgs, and the CSRF token',
        response: { 200: sessionAnswer, ...errorResponses('people') },
      },
    },
    async (request) => {
      const session = request.person!;
      const person = await personById(pool, session.personId);
      if (!person) throw new Unavailable('Your account is still being set up');
      return { data: sessionData(directory, person, app.sessions.csrfToken(session)) };
    },
  );
};
