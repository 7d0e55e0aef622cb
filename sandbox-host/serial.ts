// In-process coordination of the sandbox commands.
//
// A command loads its state, decides, publishes and waits for the read model while holding the
// lock of what it decides on: a sandbox's id, or `org:<id>` for what names and idempotency keys
// claim. So two commands on one sandbox never decide against the same state. A sandbox lives on
// one host, and one host process owns that host's sandboxes (one per state folder), so for a
// sandbox's own commands an in-process lock is the whole story; names and idempotency keys are
// the org's across hosts, so creates and forks also hold the org's claim in Postgres
// (stores/sandboxes.ts, claimingNames).

export class KeyedLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` once every earlier task under `key` has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(task, task);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return next;
  }
}

/**
 * Uses in progress (an exec, a file transfer, a desktop call, an open screen): the idle-timeout
 * job leaves such a sandbox alone, so a 10-minute exec is not stopped halfway by a 60-second timeout.
 */
export class UsesInProgress {
  private readonly counts = new Map<string, number>();

  async during<T>(sandboxId: string, task: () => Promise<T>): Promise<T> {
    const release = this.begin(sandboxId);
    try {
      return await task();
    } finally {
      release();
    }
  }

  /** Returns the function that ends this use (call it once). */
  begin(sandboxId: string): () => void {
    this.counts.set(sandboxId, (this.counts.get(sandboxId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.counts.get(sandboxId) ?? 1) - 1;
      if (left > 0) this.counts.set(sandboxId, left);
      else this.counts.delete(sandboxId);
    };
  }

  busy(sandboxId: string): boolean {
    return this.counts.has(sandboxId);
  }
}
