import { config } from './config.ts';
import type { Logger } from './logger.ts';

/**
 * The variable `npm start`'s supervisor (infra/platform.ts) sets on the processes it starts, each
 * with an IPC channel to it: the channel closes when the supervisor dies, however it dies.
 */
export const supervisedVariable = 'ORRERY_SUPERVISED';

/**
 * Drains on SIGTERM or SIGINT, and when the supervisor that started this process is gone: runs
 * `drain` (stop accepting, finish in-flight work, commit), then exits; a drain that outlives the
 * grace period is cut short with exit code 1. Without its supervisor nothing would restart this
 * process when it dies, and a new `npm start` would find its port taken: so it ends as well.
 */
export function onShutdown(logger: Logger, drain: () => Promise<void>): void {
  let draining = false;
  const stop = (why: string) => {
    if (draining) return;
    draining = true;
    logger.info({ why }, 'draining');
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
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  if (process.env[supervisedVariable] === '1' && process.channel !== undefined) {
    // The channel carries nothing; it is only watched, so it keeps no process alive.
    process.channel.unref();
    process.once('disconnect', () => {
      logger.warn('the supervisor is gone (its channel closed): stopping, so nothing serves unsupervised');
      stop('supervisor gone');
    });
  }
}
