/** How an adapter waits `ms` milliseconds; tests pass their own so no test sleeps. */
export type Sleep = (ms: number) => Promise<void>;

export const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
