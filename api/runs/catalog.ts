import { z } from 'zod';
import { centsOfMicrodollars, hardwareMicrodollarsPerSecond } from '../../domain/billing/price.ts';
import { minimumCeilingMicrodollars } from '../../domain/runs/decide.ts';
import { type SandboxSize, sandboxSizes } from '../../domain/sandboxes/events.ts';
import { sizeResources } from '../../domain/sandboxes/sizes.ts';

// `GET /api/catalog` (spec 002's `GET /catalog`; issue 16): the hardware a run may ask for, with
// its cores, memory and disk (domain/sandboxes/sizes.ts), its price (domain/billing/price.ts, the one table) and whether this deployment can hold it. A
// size is available when a live sandbox host of the fleet has its cores and memory
// (domain/sandboxes/hosts.ts): a run is billed for what its size promises, so a size whose cores
// no host has (the quota would not bind) is not sold. Placing one is refused with 409
// `size_unavailable`.

export const catalogEntry = z.object({
  size: z.enum(sandboxSizes),
  cpus: z.number().int(),
  memory_mib: z.number().int(),
  disk_mib: z.number().int().describe('the most its files may add to the base filesystem'),
  disk_mbps: z.number().int().describe('MB/s (10^6 bytes) it may read and write, each way'),
  price_per_second_cents: z.number().describe('cents, to four decimal places'),
  price_per_hour_cents: z.number(),
  minimum_ceiling_cents: z.number().describe('one second of the size: the least `ceiling_cents` of a run'),
  available: z.boolean().describe('whether this deployment can run the size now'),
});

export const catalogAnswer = z.object({ data: z.array(catalogEntry) });

export async function catalog(
  available: (size: SandboxSize) => Promise<boolean>,
): Promise<z.output<typeof catalogAnswer>> {
  return {
    data: await Promise.all(
      sandboxSizes.map(async (size) => {
        const perSecond = hardwareMicrodollarsPerSecond[size];
        return {
          size,
          cpus: sizeResources[size].cpus,
          memory_mib: sizeResources[size].memoryMiB,
          disk_mib: sizeResources[size].diskMiB,
          disk_mbps: sizeResources[size].diskMBps,
          price_per_second_cents: centsOfMicrodollars(perSecond),
          price_per_hour_cents: centsOfMicrodollars(perSecond * 3600),
          minimum_ceiling_cents: centsOfMicrodollars(minimumCeilingMicrodollars(size)),
          available: await available(size),
        };
      }),
    ),
  };
}
