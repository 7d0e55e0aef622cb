import { type FastifyBaseLogger, type FastifyServerOptions, LogController } from 'fastify';
import type { Logger } from '../platform/logger.ts';

/** Options every Fastify server of ours shares: our pino logger, no per-request log lines. */
export function serverOptions(logger: Logger): FastifyServerOptions {
  return {
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
  };
}
