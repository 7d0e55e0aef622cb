import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { legacyHostId } from '../domain/sandboxes/hosts.ts';
import { recordedIds } from '../sandbox-runtime/state.ts';
import { hostId as hostIdSchema } from '../schemas/sandbox-hosts.ts';

// Who this host is: an id kept in its state folder (`host.json`), made on its first start. A
// host restarted (a crash, a new pod on the same node) finds the same id and the same sandboxes;
// a host whose state folder is gone starts as a new member, and its old id's sandboxes become
// lost once that id's lease has run out for the grace period (jobs/fleet.ts). A folder from
// before hosts (sandboxes in it, no host.json) is the one machine's, and takes the legacy id.

const identityFile = z.strictObject({ hostId: hostIdSchema, createdAt: z.string() });
export type HostIdentity = z.output<typeof identityFile>;

export function hostIdentity(stateDir: string): HostIdentity {
  const dir = resolve(stateDir);
  const file = join(dir, 'host.json');
  if (existsSync(file)) return identityFile.parse(JSON.parse(readFileSync(file, 'utf8')));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const legacy = recordedIds(dir).length > 0;
  const identity: HostIdentity = {
    hostId: legacy ? legacyHostId : `host_${randomBytes(6).toString('hex')}`,
    createdAt: new Date().toISOString(),
  };
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(identity, null, 2));
  renameSync(temporary, file);
  return identity;
}
