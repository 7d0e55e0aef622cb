import type { Admission } from '../../domain/tracing/admission.ts';
import { admitRequests, deleteTrace, type IngestDeps, type PendingSpans } from './ingest.ts';

type Task =
  | {
      kind: 'spans';
      spans: PendingSpans;
      resolve: (admission: Admission) => void;
      reject: (error: unknown) => void;
    }
  | {
      kind: 'deletion';
      traceId: string;
      resolve: (known: boolean) => void;
      reject: (error: unknown) => void;
    };

/** Spans admitted in one group at most: bounds a group's size and its hold on the org's lease. */
const maxGroupSpans = 20_000;

/**
 * One org's admissions and deletions run one at a time in this process, in arrival order, so
 * each is decided against the ledger its predecessors left (the org's lease does the same across
 * processes). Group commit: span requests that arrive while the org's work is running wait and
 * are then admitted together, so throughput grows with load while each request is still decided
 * exactly. A deletion runs alone, between the groups before and after it.
 */
export class AdmissionQueue {
  private readonly waiting = new Map<string, Task[]>();

  constructor(private readonly deps: IngestDeps) {}

  admit(orgId: string, spans: PendingSpans): Promise<Admission> {
    return new Promise((resolve, reject) => this.enqueue(orgId, { kind: 'spans', spans, resolve, reject }));
  }

  /** Deletes the trace; false when the org does not have it. */
  deleteTrace(orgId: string, traceId: string): Promise<boolean> {
    return new Promise((resolve, reject) =>
      this.enqueue(orgId, { kind: 'deletion', traceId, resolve, reject }),
    );
  }

  private enqueue(orgId: string, task: Task): void {
    const queue = this.waiting.get(orgId);
    if (queue) {
      queue.push(task);
      // Normalized while it waits, on a later turn, so this request's answer is not delayed.
      if (task.kind === 'spans') setImmediate(() => task.spans.prepare());
      return;
    }
    this.waiting.set(orgId, [task]);
    void this.drain(orgId);
  }

  private async drain(orgId: string): Promise<void> {
    for (let queue = this.waiting.get(orgId); queue && queue.length > 0; queue = this.waiting.get(orgId)) {
      const head = queue.shift()!;
      if (head.kind === 'deletion') {
        await deleteTrace(this.deps, orgId, head.traceId).then(head.resolve, head.reject);
        continue;
      }
      const group = [head];
      let size = head.spans.traceIds.length;
      for (
        let next = queue[0];
        next?.kind === 'spans' && size + next.spans.traceIds.length <= maxGroupSpans;
        next = queue[0]
      ) {
        group.push(next);
        size += next.spans.traceIds.length;
        queue.shift();
      }
      try {
        const admissions = await admitRequests(
          this.deps,
          orgId,
          group.map((task) => task.spans),
        );
        group.forEach((task, index) => {
          const admission = admissions[index]!;
          if (admission instanceof Error) task.reject(admission);
          else task.resolve(admission);
        });
      } catch (error) {
        for (const task of group) task.reject(error);
      }
    }
    this.waiting.delete(orgId);
  }
}
