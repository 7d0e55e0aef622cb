import { availableParallelism, totalmem } from 'node:os';
import { z } from 'zod';
import { centsOfMicrodollars, hardwareMicrodollarsPerSecond } from '../../domain/billing/price.ts';
import { minimumCeilingMicrodollars } from '../../domain/runs/decide.ts';
import { type SandboxSize, sandboxSizes } from '../../domain/sandboxes/events.ts';
import { sizeLimits } from '../../sandbox-runtime/limits.ts';

// `GET /api/catalog` (spec 002's `GET /catalog`; issue 16): the hardware a run may ask for, with
// its price (domain/billing/price.ts, the one table) and whether this deployment can hold it. A
// size is available when this host has its cores and memory: a run is billed for what its size
// promises, so a size whose cores the host lacks (sandbox-runtime/limits.ts: the quota would not
// bind) is not sold here. Placing one is refused with 409 `size_unavailable`.

export interface Host {
  cpus: number;
  memoryMiB: number;
}

export function thisHost(): Host {
  return { cpus: availableParallelism(), memoryMiB: Math.floor(totalmem() / (1024 * 1024)) };
}

export function sizeAvailable(size: SandboxSize, host: Host): boolean {
  const limits = sizeLimits[size];
  return limits.cpus <= host.cpus && limits.memoryMiB <= host.memoryMiB;
}

export const catalogEntry = z.object({
  size: z.enum(sandboxSizes),
  cpus: z.number().int(),
  memory_mib: z.number().int(),
  price_per_second_cents: z.number().describe('cents, to four decimal places'),
  price_per_hour_cents: z.number(),
  minimum_ceiling_cents: z.number().describe('one second of the size: the least `ceiling_cents` of a run'),
  available: z.boolean().describe('whether this deployment can run the size now'),
});

export const catalogAnswer = z.object({ data: z.array(catalogEntry) });

export function catalog(host: Host): z.output<typeof catalogAnswer> {
  return {
    data: sandboxSizes.map((size) => {
      const perSecond = hardwareMicrodollarsPerSecond[size];
      return {
        size,
        cpus: sizeLimits[size].cpus,
        memory_mib: sizeLimits[size].memoryMiB,
        price_per_second_cents: centsOfMicrodollars(perSecond),
        price_per_hour_cents: centsOfMicrodollars(perSecond * 3600),
        minimum_ceiling_cents: centsOfMicrodollars(minimumCeilingMicrodollars(size)),
        available: sizeAvailable(size, host),
      };
    }),
  };
}
