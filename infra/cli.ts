import { config } from '../platform/config.ts';
import { defaultRootfsCache, ensureRootfs } from '../sandbox-runtime/rootfs.ts';
import { provision } from './provision.ts';
import { stackStatus, startStack, stopStack } from './stack/index.ts';

// `npm run stack -- start|stop|status|provision`: the local stack without Docker. With ORRERY_STACK=external
// (a stack from infra/compose.yaml, say) `start` only provisions it.
const log = (line: string) => process.stderr.write(`[stack] ${line}\n`);
const command = process.argv[2] ?? 'status';

try {
  if (command === 'start') {
    if (process.env.ORRERY_STACK !== 'external') {
      const outcomes = await startStack(config(), log);
      log(
        Object.entries(outcomes)
          .map(([name, outcome]) => `${name} ${outcome}`)
          .join(', '),
      );
    }
    await provision(config(), log);
    log('provisioned: migrations, topics, schemas');
    // The sandboxes' base filesystem (Debian with the desktop's packages), built once and cached
    // outside the checkout, so the first sandbox does not wait minutes for it.
    await ensureRootfs(defaultRootfsCache(), log);
  } else if (command === 'provision') {
    // Only the platform's part of a running stack (migrations, topics, schemas): starts nothing.
    await provision(config(), log);
    log('provisioned: migrations, topics, schemas');
  } else if (command === 'stop') {
    await stopStack(config(), log);
  } else if (command === 'status') {
    const status = await stackStatus(config());
    process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    if (Object.values(status).some((state) => state !== 'healthy')) process.exitCode = 1;
  } else {
    log(`unknown command "${command}"; use start, stop, status or provision`);
    process.exitCode = 2;
  }
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
