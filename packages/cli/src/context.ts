import type { AccessSettings } from './access.ts';
import type { Output } from './output.ts';
import type { Sleep } from './sleep.ts';

/** What every command is given: where and how to reach the API, the streams, the waits. */
export interface Context extends AccessSettings {
  output: Output;
  sleep: Sleep;
  /** Calls `handler` on Ctrl-C (SIGINT) instead of ending the process, until the answer is called. */
  onInterrupt(handler: () => void): () => void;
}
