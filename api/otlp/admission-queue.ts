import type { Admission } from '../../domain/tracing/admission.ts';
import { deleteTrace, type IngestDeps, type PendingSpans } from './ingest.ts';
import { OrgAdmissions } from './org-admissions.ts';

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

/** Spans admitted in one group at most: bounds a group's size and its statements' work. */
const maxGroupSpans = 20_000;

/**
 * Groups of one org between their ledger read and their recording at most. One group is read and
 * decided at a time (requests arriving meanwhile gather into the next), while the groups decided
 * before it are published and recorded.
 */
const maxGroupsInFlight = 3;

/** One org's waiting work and its admissions under way. */
interface OrgLine {
  tasks: Task[];
  admissions: OrgAdmissions;
  deleting: boolean;
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
    let line = this.lines.get(orgId);
    if (!line) {
      line = {
        tasks: [],
        admissions: new OrgAdmissions(this.deps, orgId, () => this.advance(orgId, line!)),
        deleting: false,
      };
      this.lines.set(orgId, line);
    }
    line.tasks.push(task);
    this.advance(orgId, line);
  }

  /** Starts what the org's line allows now; called on arrival and whenever a group or deletion ends. */
  private advance(orgId: string, line: OrgLine): void {
    while (line.tasks.length > 0 && !line.deleting) {
      const head = line.tasks[0]!;
      if (head.kind === 'deletion') {
        if (line.admissions.inFlight > 0) return;
        line.tasks.shift();
        line.deleting = true;
        deleteTrace(this.deps, orgId, head.traceId)
          .then(head.resolve, head.reject)
          .finally(() => {
            line.deleting = false;
            this.advance(orgId, line);
          });
        return;
      }
      if (line.admissions.deciding || line.admissions.inFlight >= maxGroupsInFlight) return;
      const group = this.takeGroup(line);
      line.admissions
        .admit(group.map((task) => task.spans))
        .then(
          (admissions) =>
            group.forEach((task, index) => {
              const admission = admissions[index]!;
              if (admission instanceof Error) task.reject(admission);
              else task.resolve(admission);
            }),
          (error: unknown) => {
            for (const task of group) task.reject(error);
          },
        )
        .finally(() => this.advance(orgId, line));
    }
    if (line.tasks.length === 0 && line.admissions.inFlight === 0 && !line.deleting) this.lines.delete(orgId);
  }

  /** The span requests at the head of the line, up to a group's size. */
  private takeGroup(line: OrgLine): Extract<Task, { kind: 'spans' }>[] {
    const group: Extract<Task, { kind: 'spans' }>[] = [];
    let size = 0;
    for (let next = line.tasks[0]; next?.kind === 'spans'; next = line.tasks[0]) {
      if (group.length > 0 && size + next.spans.traceIds.length > maxGroupSpans) break;
      group.push(next);
      size += next.spans.traceIds.length;
      line.tasks.shift();
    }
    return group;
  }
}
