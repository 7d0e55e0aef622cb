import { parseArgs } from 'node:util';
import { type Role, roles, type Scope, scopes } from '../../domain/orgs/events.ts';
import { config } from '../../platform/config.ts';
import { createPgPool } from '../../platform/postgres.ts';
import { createEventProducer } from '../../producers/producer.ts';
import {
  type AdminDeps,
  addMember,
  createApiKey,
  createOrg,
  enableTracing,
  grantCredit,
  revokeApiKey,
  tracingRequests,
} from './commands.ts';
import { listHosts, setHostDraining } from './hosts.ts';

// `npm run admin -- <noun> <verb> [flags] [--json]`: the Settings page until there is a dashboard.
// Exit 2: a mistyped command (the message names the flag); exit 1: the command was refused.
const usage = `usage:
  npm run admin -- org create --name <name> [--json]
  npm run admin -- key create --org <org_id> --scopes <scope,scope> [--name <name>] [--json]
  npm run admin -- key revoke --org <org_id> --key <key_id> [--json]
  npm run admin -- credit grant --org <org_id> --cents <n> [--reason <text>] [--json]
  npm run admin -- tracing enable --org <org_id> [--json]
  npm run admin -- tracing requests [--json]      (orgs that asked to join the beta, oldest first)
  npm run admin -- member add --org <org_id> --email <email> --role <role> [--json]
  npm run admin -- host list [--all] [--json]          (this fleet's sandbox hosts, or every fleet's: live, draining, what each holds)
  npm run admin -- host drain <host> [--json]          (no new sandboxes there; what runs keeps running)
  npm run admin -- host undrain <host> [--json]
scopes: ${scopes.join(', ')}
roles: ${roles.join(', ')} (the person signed up with that email first)`;

class UsageError extends Error {}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        org: { type: 'string' },
        key: { type: 'string' },
        scopes: { type: 'string' },
        cents: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        reason: { type: 'string', default: 'admin grant' },
        json: { type: 'boolean', default: false },
        all: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`missing --${flag}`);
  return value;
}

function parseScopes(text: string): Scope[] {
  const list = text.split(',').map((scope) => scope.trim());
  const unknown = list.filter((scope) => !scopes.includes(scope as Scope));
  if (unknown.length > 0)
    throw new UsageError(`--scopes: unknown scope ${unknown.join(', ')}; use ${scopes.join(', ')}`);
  return list as Scope[];
}

function parseRole(text: string): Role {
  const role = roles.find((known) => known === text);
  if (!role) throw new UsageError(`--role: unknown role ${text}; use ${roles.join(' or ')}`);
  return role;
}

async function run(deps: AdminDeps, command: string, values: ReturnType<typeof parse>['values']) {
  switch (command) {
    case 'org create':
      return createOrg(deps, required(values.name, 'name'));
    case 'key create':
      return createApiKey(
        deps,
        required(values.org, 'org'),
        parseScopes(required(values.scopes, 'scopes')),
        values.name,
      );
    case 'key revoke':
      return revokeApiKey(deps, required(values.org, 'org'), required(values.key, 'key'));
    case 'credit grant': {
      const cents = Number(required(values.cents, 'cents'));
      if (!Number.isSafeInteger(cents) || cents <= 0)
        throw new UsageError('--cents: a positive whole number of cents');
      return grantCredit(deps, required(values.org, 'org'), cents, values.reason ?? 'admin grant');
    }
    case 'tracing enable':
      return enableTracing(deps, required(values.org, 'org'));
    case 'tracing requests':
      return tracingRequests(deps.pool);
    case 'host list':
      return listHosts(deps.pool, values.all ? undefined : config().fleet.name);
    case 'host drain':
    case 'host undrain': {
      const named = positionalHost();
      return setHostDraining(deps.pool, named, command === 'host drain');
    }
    case 'member add':
      return addMember(
        deps,
        required(values.org, 'org'),
        required(values.email, 'email'),
        parseRole(required(values.role, 'role')),
      );
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** `host drain <host>`: the host's id or name, the third word. */
function positionalHost(): string {
  const named = parsed.positionals[2];
  if (!named) throw new UsageError('name the host: its id or its name (npm run admin -- host list)');
  return named;
}

let parsed: ReturnType<typeof parse>;
try {
  parsed = parse();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${usage}\n`);
  process.exit(2);
}
const command = parsed.positionals.slice(0, 2).join(' ');
const pool = createPgPool(2);
// An operator waits for an answer rather than retrying: the command's publish may take as long as
// a broker needs (a stack just started, topics just made), however short the API's waits are.
const { timeouts } = config().kafka;
const producer = await createEventProducer('orrery-admin', {
  settings: {
    ...config().kafka,
    timeouts: {
      requestMs: Math.max(timeouts.requestMs, 5_000),
      deliveryMs: Math.max(timeouts.deliveryMs, 30_000),
      callerMs: Math.max(timeouts.callerMs, 30_000),
    },
  },
});
try {
  const result = await run({ pool, producer }, command, parsed.values);
  process.stdout.write(
    parsed.values.json
      ? `${JSON.stringify(result, null, 2)}\n`
      : `${describe(command, result, parsed.values)}\n`,
  );
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  if (error instanceof UsageError) process.stderr.write(`${usage}\n`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  await producer.disconnect();
  await pool.end();
}

function describe(command: string, result: unknown, values: ReturnType<typeof parse>['values']): string {
  if (command === 'key create') {
    const key = result as { key: string; keyId: string };
    return `created ${key.keyId}\n${key.key}\n(the key is shown once: store it now)`;
  }
  if (command === 'tracing requests') {
    const requests = result as Awaited<ReturnType<typeof tracingRequests>>;
    if (requests.length === 0) return 'no org is waiting to join the tracing beta';
    return requests.map((request) => `${request.orgId}\t${request.name}\t${request.requestedAt}`).join('\n');
  }
  if (command === 'host list') {
    const hosts = result as Awaited<ReturnType<typeof listHosts>>;
    if (hosts.length === 0) return 'no sandbox host has announced itself (is `npm start` running?)';
    return hosts
      .map((host) =>
        [
          host.hostId,
          host.name,
          host.fleet,
          host.lost ? 'lost' : host.live ? 'live' : 'gone',
          host.draining ? 'draining' : 'placing',
          `${host.sandboxes} sandboxes`,
          `${host.memoryHeldMiB}/${host.memoryBudgetMiB} MiB`,
          host.url,
        ].join('\t'),
      )
      .join('\n');
  }
  if (command === 'host drain' || command === 'host undrain') {
    const host = result as { hostId: string; name: string; draining: boolean };
    return `${host.hostId} (${host.name}) is ${host.draining ? 'draining: nothing new is placed there' : 'placing again'}`;
  }
  if (command === 'member add') {
    const { orgId } = result as { orgId: string };
    return `member add: done (${values.email} is ${values.role === 'owner' ? 'an owner' : 'a member'} of ${orgId})`;
  }
  const org = result as { orgId?: string } | undefined;
  return `${command}: done${org?.orgId ? ` (${org.orgId})` : ''}`;
}
