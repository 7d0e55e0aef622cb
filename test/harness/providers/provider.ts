/** Where the integration tests get their stack: local processes, or containers. */
export interface StackProvider {
  readonly name: string;
  /** Starts (or reuses) the stack and provisions it; returns the environment pointing at it. */
  start(
    log: (line: string) => void,
  ): Promise<{ environment: Record<string, string>; stop: () => Promise<void> }>;
}
