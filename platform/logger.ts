import { destination, pino, stdTimeFunctions } from 'pino';
import { config } from './config.ts';

/** JSON logs on stdout; Fastify uses the same instance. */
export const logger = pino(
  {
    level: config().logLevel,
    base: { service: process.env.ORRERY_SERVICE ?? 'orrery' },
    timestamp: stdTimeFunctions.isoTime,
  },
  destination(config().logDestination === 'stderr' ? 2 : 1),
);

export type Logger = typeof logger;
