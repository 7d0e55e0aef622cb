import type { Admission } from '../../domain/tracing/admission.ts';
import type { IngestDeps, PendingSpans } from './ingest.ts';
import { OrgAdmissions } from './org-admissions.ts';

type SpansTask = {
  kind: 'spans';
  spans: PendingSpans;
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
};
type Task =
  | SpansTask
  | {
      kind: 'deletion';
      traceId: string;
      resolve: (known: boolean) => void;
      reject: (error: unknown) => void;
    };

/** Spans admitted in one group at most: bounds a group's size and its statements' work. */
const maxGroupSpans = 20_000;

/**
 * How long an org's lease is kept once its work is done, so that a steady sender's next request
 * finds it held (a request's answer and the sender's next export are a few milliseconds apart);
 * another process wanting it meanwhile waits this long at most.
 */
const defaultLeaseIdleMs = 100;

/** One org's waiting work and its admissions under way. */
interface OrgLine {
  tasks: Task[];
  admissions: OrgAdmissions;
  idle?: NodeJS.Timeout;
  /** The lease being given back after an idle while: work waits for it, then takes the lease anew. */
  releasing?: Promise<void>;
}

/**
 * One org's admissions and deletions in this process, one at a time, in arrival order, so each is
 * decided against the ledger its predecessors left (the org's lease does the same across
 * processes). Group commit: span requests that arrive while the org's work is running wait and are
 * then admitted together, so throughput grows with load while each request is still decided
 * exactly. A deletion runs alone, between the groups before and after it.
 */
export class AdmissionQueue {
  private readonly lines = new Map<string, OrgLine>();
  private closed = false;

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

  /** Gives back every lease still kept, and ends the process's presence; it admits nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.lines.values()].map(async (line) => {
        clearTimeout(line.idle);
        await line.admissions.releaseLease();
      }),
    );
    this.lines.clear();
    await this.deps.leases.close();
  }

  private enqueue(orgId: string, task: Task): void {
    if (this.closed) {
      task.reject(new Error('the admission queue is closed'));
      return;
    }
    let line = this.lines.get(orgId);
    if (!line) {
      line = { tasks: [], admissions: new OrgAdmissions(this.deps, orgId) };
      this.lines.set(orgId, line);
    }
    clearTimeout(line.idle);
    line.tasks.push(task);
    this.advance(orgId, line);
    // One waiting for the org's running group is normalized meanwhile, on a later turn, so this
    // request's answer is not delayed.
    if (task.kind === 'spans' && line.tasks.includes(task)) setImmediate(() => task.spans.prepare());
  }

  /** Starts the org's next group or deletion, if none is running; called on arrival and when one ends. */
  private advance(orgId: string, line: OrgLine): void {
    const { admissions } = line;
    // Work waiting while a store it needs is away would wait on it: it fails now, as a request
    // arriving meanwhile is refused, even behind a group or a give-back still held up (issue 49).
    const away = this.deps.away?.();
    if (away)
      for (const task of line.tasks.splice(0))
        task.reject(new Error(`${away} is away: the request was not admitted`));
    if (line.releasing || admissions.busy) return;
    const head = line.tasks[0];
    if (!head) {
      this.idle(orgId, line);
      return;
    }
    if (head.kind === 'deletion') {
      line.tasks.shift();
      admissions.deleteTrace(head.traceId).then(
        (known) => {
          head.resolve(known);
          this.advance(orgId, line);
        },
        (error: unknown) => {
          head.reject(error);
          this.afterFailure(orgId, line);
        },
      );
      return;
    }
    const group = takeGroup(line.tasks);
    admissions.admit(group.map((task) => task.spans)).then(
      (verdicts) => {
        group.forEach((task, index) => {
          const verdict = verdicts[index]!;
          if (verdict instanceof Error) task.reject(verdict);
          else task.resolve(verdict);
        });
        this.advance(orgId, line);
      },
      (error: unknown) => {
        for (const task of group) task.reject(error);
        this.afterFailure(orgId, line);
      },
    );
  }

  /**
   * A group or deletion failed, its callers answered: the lease is given back, so the org's next
   * one starts afresh, and the line waits for that meanwhile.
   */
  private afterFailure(orgId: string, line: OrgLine): void {
    line.releasing = line.admissions.releaseLease().finally(() => {
      line.releasing = undefined;
      this.advance(orgId, line);
    });
    this.advance(orgId, line);
  }

  /** The org's work is done: its lease is given back after a while unless more work comes. */
  private idle(orgId: string, line: OrgLine): void {
    clearTimeout(line.idle);
    line.idle = setTimeout(() => {
      if (line.tasks.length > 0 || line.admissions.busy) return;
      line.releasing = line.admissions.releaseLease().finally(() => {
        line.releasing = undefined;
        if (line.tasks.length > 0) this.advance(orgId, line);
        else if (this.lines.get(orgId) === line) this.lines.delete(orgId);
      });
    }, this.deps.leaseIdleMs ?? defaultLeaseIdleMs);
  }
}

/** The span requests at the head of the line, up to a group's size. */
function takeGroup(tasks: Task[]): SpansTask[] {
  const group: SpansTask[] = [];
  let size = 0;
  for (let next = tasks[0]; next?.kind === 'spans'; next = tasks[0]) {
    if (group.length > 0 && size + next.spans.traceIds.length > maxGroupSpans) break;
    group.push(next);
    size += next.spans.traceIds.length;
    tasks.shift();
  }
  return group;
}
