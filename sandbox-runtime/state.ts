import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { sandboxSizes } from '../domain/sandboxes/events.ts';
import { egressModes, noNetwork } from '../domain/sandboxes/network.ts';
import { cgroupSet, limitReport } from './cgroups.ts';
import { diskIoLimit } from './disk-io.ts';
import { procViews } from './proc-views.ts';
import { diskLimit, filesystemModes, type Layout } from './sandbox-fs.ts';
import { idRange } from './user-namespace.ts';

// What the runtime knows about a sandbox, kept on disk beside its files (`sandbox.json`), so a
// restarted API process finds every sandbox again (runtime.ts `recover()`). Nothing else holds
// state: whether the processes live is read from /proc, whether they are frozen from the cgroup.

export const sandboxRecord = z.object({
  id: z.string(),
  size: z.enum(sandboxSizes),
  createdAt: z.string(),
  forkedFrom: z.string().nullable(),
  filesystem: z.enum(filesystemModes),
  /** The base filesystem (overlay lower layer, or the source of the copy). */
  rootfs: z.string(),
  /** The template it was made from (template-store.ts), and that template's layers over the base, top first. */
  template: z.string().nullable().default(null),
  layers: z.array(z.string()).default([]),
  /** The bound on its layer's bandwidth (disk-io.ts), set at each start of its init. */
  diskIo: diskIoLimit.default({
    applied: false,
    reason: 'its init started before disk bandwidth had a bound',
  }),
  /** The layer's disk quota (sandbox-fs.ts); none for a sandbox made before there were any. */
  disk: diskLimit.default({ applied: false, reason: 'made before sandboxes had disk quotas' }),
  /** The confinement's folder (confine.ts); null for a sandbox made before there was one. */
  confinement: z.string().nullable().default(null),
  /** Its own range of host ids (user-namespace.ts); the shared one for a sandbox made before. */
  idRange: idRange.default({ applied: false, reason: 'made before sandboxes had their own id ranges' }),
  cgroups: cgroupSet,
  limits: limitReport,
  /** What its init binds over its /proc (proc-views.ts), decided at each start of an init. */
  procViews: procViews.default({
    applied: false,
    reason: 'its init started before sandboxes had /proc views',
  }),
  freezer: z.enum(['cgroup', 'signals']),
  /** The sandbox's pid 1 seen from the host, with its start time against pid reuse. */
  init: z.object({ pid: z.number().int(), startTime: z.string() }).nullable(),
  /** What the API last asked for; after a crash, recover() brings the processes back to it. */
  desired: z.enum(['running', 'stopped']),
  /** Its network policy; a sandbox made before sandboxes had a network has none (loopback only). */
  network: z
    .object({ egress: z.enum(egressModes), allow: z.array(z.string()), deny: z.array(z.string()) })
    .default(noNetwork),
  /** slirp4netns carrying its traffic out (network.ts), while its egress is open. */
  egress: z.object({ pid: z.number().int(), startTime: z.string() }).nullable().default(null),
  /** Set before destroy starts, so an interrupted destroy is finished by recover(). */
  destroying: z.boolean(),
});
export type SandboxRecord = z.infer<typeof sandboxRecord>;

export function readRecord(layout: Layout): SandboxRecord | undefined {
  if (!existsSync(layout.record)) return undefined;
  return sandboxRecord.parse(JSON.parse(readFileSync(layout.record, 'utf8')));
}

/** Written whole and renamed into place, so a crash never leaves half a record. */
export function writeRecord(layout: Layout, record: SandboxRecord): void {
  const temporary = `${layout.record}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(record, null, 2));
  renameSync(temporary, layout.record);
}

/** The ids of every sandbox with a record under the state folder. */
export function recordedIds(baseDir: string): string[] {
  if (!existsSync(baseDir)) return [];
  return readdirSync(baseDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(baseDir, entry.name, 'sandbox.json')))
    .map((entry) => entry.name);
}
