import { config } from './config.ts';
import type { Logger } from './logger.ts';

/**
 * Drains on SIGTERM or SIGINT: runs `drain` (stop accepting, finish in-flight work, commit),
 * then exits; a drain that outlives the grace period is cut short with exit code 1.
 */
export function onShutdown(logger: Logger, drain: () => Promise<void>): void {
  let draining = false;
  const stop = (signal: NodeJS.Signals) => {
    if (draining) return;
    draining = true;
    logger.info({ signal }, 'draining');
    const timer = setTimeout(() => {
      logger.error('drain timed out; exiting');
      process.exit(1);
    }, config().shutdownGraceMs);
    timer.unref();
    drain()
      .then(() => {
        logger.info('drained; exiting');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'drain failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
