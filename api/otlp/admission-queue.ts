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
 * Groups of one org between their forming and their recording at most: enough to keep Kafka and
 * Postgres busy with one group while the next is read and decided, few enough that requests
 * arriving meanwhile still gather into large groups.
 */
const maxGroupsInFlight = 3;

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
  deleting: boolean;
  idle?: NodeJS.Timeout;
  /** The lease being given back after an idle while: work waits for it, then takes the lease anew. */
  releasing?: Promise<void>;
}

/**
 * One org's admissions and deletions in this process, in arrival order, so each is decided
 * against everything admitted before it (the org's lease does the same across processes). Group
 * commit: span requests that arrive while earlier groups are under way wait and are then admitted
 * together, so throughput grows with load while each request is still decided exactly; a few
 * groups are under way at once (org-admissions.ts). A deletion waits for the groups before it and
 * runs alone.
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

  /** Gives back every lease still kept; the process admits nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.lines.values()].map(async (line) => {
        clearTimeout(line.idle);
        await line.admissions.releaseLease();
      }),
    );
    this.lines.clear();
  }

  private enqueue(orgId: string, task: Task): void {
    if (this.closed) {
      task.reject(new Error('the admission queue is closed'));
      return;
    }
    let line = this.lines.get(orgId);
    if (!line) {
      line = { tasks: [], admissions: new OrgAdmissions(this.deps, orgId), deleting: false };
      this.lines.set(orgId, line);
    }
    clearTimeout(line.idle);
    line.tasks.push(task);
    this.advance(orgId, line);
    // One waiting for the org's groups under way is normalized meanwhile, on a later turn, so
    // this request's answer is not delayed.
    if (task.kind === 'spans' && line.tasks.includes(task)) setImmediate(() => task.spans.prepare());
  }

  /** Starts what the org's line allows now; called on arrival and whenever a group or deletion ends. */
  private advance(orgId: string, line: OrgLine): void {
    const { admissions } = line;
    if (line.releasing) return;
    // Another process wants the lease: it is given back once the groups under way are recorded.
    if (admissions.yielding) {
      if (admissions.running === 0 && !line.deleting)
        void admissions.yieldLease().finally(() => this.advance(orgId, line));
      return;
    }
    while (line.tasks.length > 0 && !line.deleting) {
      const head = line.tasks[0]!;
      if (head.kind === 'deletion') {
        if (admissions.running > 0) return;
        line.tasks.shift();
        line.deleting = true;
        admissions
          .deleteTrace(head.traceId)
          .then(head.resolve, head.reject)
          .finally(() => {
            line.deleting = false;
            this.advance(orgId, line);
          });
        return;
      }
      if (admissions.running >= maxGroupsInFlight) return;
      const group = takeGroup(line.tasks);
      admissions
        .admit(group.map((task) => task.spans))
        .then(
          (verdicts) =>
            group.forEach((task, index) => {
              const verdict = verdicts[index]!;
              if (verdict instanceof Error) task.reject(verdict);
              else task.resolve(verdict);
            }),
          (error: unknown) => {
            for (const task of group) task.reject(error);
          },
        )
        .finally(() => this.advance(orgId, line));
    }
    if (line.tasks.length === 0 && admissions.running === 0 && !line.deleting) this.idle(orgId, line);
  }

  /** The org's work is done: its lease is given back after a while unless more work comes. */
  private idle(orgId: string, line: OrgLine): void {
    clearTimeout(line.idle);
    line.idle = setTimeout(() => {
      if (line.tasks.length > 0 || line.admissions.running > 0 || line.deleting) return;
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
