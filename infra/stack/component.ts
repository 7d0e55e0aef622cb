import { join } from 'node:path';
import type { Config } from '../../platform/config.ts';
import type { Daemon } from './processes.ts';

/** One part of the local stack: installed, started detached, checked, stopped. */
export interface Component {
  readonly name: string;
  readonly port: number;
  /** Its processes: one, or one per node (a three-node Kafka). */
  readonly daemons: readonly Daemon[];
  /** Fetches what is missing (jars, archives, data folders); idempotent and offline once cached. */
  install(log: (line: string) => void): void;
  healthy(): Promise<boolean>;
  /** Starts the daemon and resolves once healthy; throws naming the component, port and log. */
  start(log: (line: string) => void): Promise<void>;
  /** Before a start after a crash: clears what the dead process left that would stop a new one. */
  recover?(): Promise<void>;
  /** Runs whenever the component is healthy, started or reused (databases that must exist, say). */
  provision?(): Promise<void>;
}

export function stackPaths(config: Config, component: string) {
  const root = config.stackDir;
  return {
    root,
    home: join(root, component),
    daemon: {
      name: component,
      pidFile: join(root, 'run', `${component}.pid`),
      logFile: join(root, 'logs', `${component}.log`),
    } satisfies Daemon,
  };
}
