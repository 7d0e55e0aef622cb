import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import { errorHandler, jsonErrorFormat } from '../errors.ts';
import { accountRoutes } from './account-routes.ts';
import { attemptCounts } from './attempt-limits.ts';
import { PeopleCommands } from './commands.ts';
import { deviceApprovalRoutes } from './device-approval-routes.ts';
import { deviceRoutes } from './device-routes.ts';
import { invitationRoutes } from './invitation-routes.ts';
import { keyRoutes } from './key-routes.ts';
import { orgRoutes } from './org-routes.ts';
import { revocationRoutes } from './revocation-routes.ts';

// The people surface (issue 15): sign-up, login and sessions, an org's members, invitations and
// keys, and the command-line login's server side. Sessions themselves are shared with the other
// surfaces (api/auth/sessions.ts, registered once).

export interface PeopleDeps {
  pool: PgPool;
  directory: OrgDirectory;
  producer: EventProducer;
  now?: () => Date;
  /** Whether the org stream has been read to its end (keys are known). */
  ready: () => boolean;
}

export const peoplePlugin: FastifyPluginAsyncZod<PeopleDeps> = async (
  app,
  { pool, directory, producer, now, ready },
) => {
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  // Attempts are counted in Postgres, shared by every replica (attempt-limits.ts). An attempt
  // that cannot be counted is refused (skipOnError off: the store's 503 is thrown), never let
  // through as if no limit applied.
  await app.register(rateLimit, { global: false, store: attemptCounts(pool, app.log), skipOnError: false });
  const deps = {
    pool,
    directory,
    commands: new PeopleCommands(directory, producer, pool),
    now: now ?? (() => new Date()),
    keysLoaded: ready,
  };
  await app.register(accountRoutes, deps);
  await app.register(orgRoutes, deps);
  await app.register(keyRoutes, deps);
  await app.register(invitationRoutes, deps);
  await app.register(deviceRoutes, deps);
  await app.register(revocationRoutes, deps);
  await app.register(deviceApprovalRoutes, deps);
};
