import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { hostOutput } from './host.ts';
import type { Layout } from './sandbox-fs.ts';

// How fast a sandbox may read and write its layer (issue 48, "abuse does not spread"): without a
// bound, one sandbox writing without end took the host's disk bandwidth, and the stack's fsyncs
// (Kafka, Postgres) and the other sandboxes waited behind it (bench/sandbox-abuse.ts: the OTLP
// endpoint's p99 seven times its idle one).
//
// Each sandbox's layer is its own loop device (sandbox-fs.ts), so a bound on that device is a
// bound on the sandbox. The inner filesystem's writeback reaches the loop device from the
// kernel's flusher threads, in the root cgroup, so the bound is the blkio root's throttle for
// that device (cgroup v1: a rule in the sandbox's own cgroup would not see writeback). And its
// backing device may hold only a little dirty data (`max_bytes` with `strict_limit`), so a writer
// is held back as it writes, rather than filling the page cache the whole host shares.
// A pure cgroup v2 host would use io.max in the sandbox's cgroup instead: not done (this host has
// the v1 hierarchy, and no v2 controllers).

export const diskIoLimit = z.union([
  z.object({ applied: z.literal(true), device: z.string(), bytesPerSecond: z.number().int().positive() }),
  z.object({ applied: z.literal(false), reason: z.string() }),
]);
export type DiskIoLimit = z.infer<typeof diskIoLimit>;

const blkioRoot = '/sys/fs/cgroup/blkio';
const throttleFiles = ['blkio.throttle.read_bps_device', 'blkio.throttle.write_bps_device'] as const;
/** Dirty data a sandbox's layer may hold before its writers wait for the disk. */
const dirtyBytes = 64 * 1024 * 1024;

/** Bounds the sandbox's loop device (its image must be mounted: after the init started). */
export async function limitDiskIo(
  layout: Layout,
  imageApplied: boolean,
  megabytesPerSecond: number,
): Promise<DiskIoLimit> {
  if (!imageApplied) return { applied: false, reason: 'its layer has no image of its own (no disk quota)' };
  if (!existsSync(join(blkioRoot, throttleFiles[1])))
    return { applied: false, reason: 'this host has no cgroup v1 blkio hierarchy (io.max is not done)' };
  const device = await loopDevice(layout.image);
  if (device === undefined) return { applied: false, reason: 'its image is not attached to a loop device' };
  const bytesPerSecond = megabytesPerSecond * 1_000_000;
  try {
    for (const file of throttleFiles) writeFileSync(join(blkioRoot, file), `${device} ${bytesPerSecond}`);
    const bdi = `/sys/class/bdi/${device}`;
    if (existsSync(join(bdi, 'max_bytes'))) {
      writeFileSync(join(bdi, 'max_bytes'), String(dirtyBytes));
      writeFileSync(join(bdi, 'strict_limit'), '1');
    }
  } catch (error) {
    return { applied: false, reason: `the kernel refused the bound: ${(error as Error).message}` };
  }
  return { applied: true, device, bytesPerSecond };
}

/** Takes the bound off a device the sandbox no longer holds (the next one to hold it gets its own). */
export function releaseDiskIo(limit: DiskIoLimit): void {
  if (!limit.applied) return;
  for (const file of throttleFiles) {
    try {
      writeFileSync(join(blkioRoot, file), `${limit.device} 0`);
    } catch {
      // no rule left, or the device is gone
    }
  }
}

/** `major:minor` of the loop device holding `image`, if one does. */
async function loopDevice(image: string): Promise<string | undefined> {
  const listed = await hostOutput('losetup', ['-j', image, '-O', 'MAJ:MIN', '-n']).catch(() => '');
  const device = listed.trim().split('\n')[0]?.trim();
  return device !== undefined && /^\d+:\d+$/.test(device) ? device : undefined;
}
