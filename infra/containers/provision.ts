import { config } from '../../platform/config.ts';
import { poll } from '../../platform/poll.ts';
import { provisionNewStack } from '../provision.ts';

// The Orrery image's `provision` command, run once before the platform's processes start against
// a stack in containers: the ClickHouse database, then everything `npm start` provisions. Compose
// may start it before the parts answer (podman-compose skips `service_healthy` on podman before
// 4.6), so a failed attempt is tried again for up to three minutes: provisioning is idempotent.
const log = (line: string) => process.stderr.write(`[provision] ${line}\n`);
let failure: unknown;
const provisioned = await poll(
  async () => {
    try {
      await provisionNewStack(config(), log);
      return true;
    } catch (error) {
      if (failure === undefined) log(`the stack does not take it yet (tried again until it does): ${error}`);
      failure = error;
      return false;
    }
  },
  { timeoutMs: 180_000, intervalMs: 1000, maxIntervalMs: 5000 },
);
if (provisioned === undefined) throw failure;
