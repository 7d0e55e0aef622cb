import { keyedClient } from '../access.ts';
import type { Context } from '../context.ts';
import { Failure } from '../failures.ts';
import { centsText, columns } from '../run-object.ts';

// `orrery catalog`: the hardware a run may use (GET /api/catalog), one size a line, size first:
// cores, memory, disk, price a second and an hour, the least ceiling, and whether this deployment has it.

interface Size {
  size: string;
  cpus: number;
  memory_mib: number;
  disk_mib: number;
  price_per_second_cents: number;
  price_per_hour_cents: number;
  minimum_ceiling_cents: number;
  available: boolean;
}

export async function catalog(context: Context, options: { json?: boolean }) {
  const { output } = context;
  const answer = await (await keyedClient(context)).get('/api/catalog');
  if (options.json) return output.answer(answer.text);
  const sizes = (answer.body as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(sizes))
    throw new Failure('The API answered GET /api/catalog without sizes: check --api-url.');
  const { palette } = output;
  for (const line of columns(
    (sizes as Size[]).map((size) => [
      { text: size.size, paint: palette.strong },
      { text: `${size.cpus} ${size.cpus === 1 ? 'cpu' : 'cpus'}` },
      { text: `${size.memory_mib} MiB` },
      { text: `${size.disk_mib / 1024} GiB disk` },
      { text: `${centsText(size.price_per_second_cents)}/s` },
      { text: `${centsText(size.price_per_hour_cents)}/hour` },
      { text: `least ceiling ${centsText(size.minimum_ceiling_cents)}` },
      size.available ? { text: 'available' } : { text: 'not available here', paint: palette.muted },
    ]),
  ))
    output.result(line);
}
