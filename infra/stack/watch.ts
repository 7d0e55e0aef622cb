import { config } from '../../platform/config.ts';
import { logger } from '../../platform/logger.ts';
import { onShutdown } from '../../platform/shutdown.ts';
import { stackComponents } from './index.ts';
import { superviseStack } from './supervise.ts';

// The stack's watcher as a process, which infra/platform.ts runs beside the platform's (and
// restarts, as it does them) unless ORRERY_STACK=external: restarts a stack daemon that crashed.
const watch = superviseStack(stackComponents(config()), {
  info: (line) => logger.info(line),
  warn: (line) => logger.warn(line),
  error: (line) => logger.error(line),
});

onShutdown(logger, async () => watch.stop());
