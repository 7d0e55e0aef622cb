import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../platform/poll.ts';
import { readLines } from './cgroups.ts';
import { sleep } from './host.ts';
import type { SandboxRecord } from './state.ts';

// stop() freezes a sandbox and resume() thaws it: its processes keep their memory, open files
// and sockets, and simply get no CPU meanwhile (spec: "files and processes are kept").
// - `cgroup`: cgroup v2's `cgroup.freeze` on the sandbox's cgroup; the kernel freezes every task
//   in it, including processes forked during the freeze and exec's children. Used wherever the
//   unified hierarchy exists (also on hybrid hosts like this VM: the freezer is not a controller).
// - `signals`, the fallback: SIGSTOP to every process of the sandbox's pid namespace, SIGCONT to
//   thaw. Weaker: a process can observe SIGCONT (a handler runs), a parent sees its child stop,
//   and a process forked between two scans is caught only by the next scan.

export type Freezer = SandboxRecord['freezer'];

export async function setFrozen(record: SandboxRecord, frozen: boolean): Promise<void> {
  if (record.freezer === 'cgroup' && record.cgroups.unified !== undefined) {
    await freezeCgroup(record.cgroups.unified, frozen);
  } else if (record.init !== null) {
    await signalNamespace(record.init.pid, frozen ? 'SIGSTOP' : 'SIGCONT');
  }
}

async function freezeCgroup(dir: string, frozen: boolean): Promise<void> {
  writeFileSync(join(dir, 'cgroup.freeze'), frozen ? '1' : '0');
  const wanted = `frozen ${frozen ? 1 : 0}`;
  await waitFor(
    `the sandbox's cgroup ${dir} to report "${wanted}"`,
    () => readLines(join(dir, 'cgroup.events')).includes(wanted),
    { timeoutMs: 10_000, intervalMs: 10 },
  );
}

/** Whether the kernel reports the sandbox frozen; for `signals`, the record is the truth. */
export function isFrozen(record: SandboxRecord): boolean {
  if (record.freezer === 'cgroup' && record.cgroups.unified !== undefined) {
    return readLines(join(record.cgroups.unified, 'cgroup.events')).includes('frozen 1');
  }
  return record.desired === 'stopped';
}

/** Signals every process whose pid namespace is the init's, until a scan finds no new one. */
async function signalNamespace(initPid: number, signal: 'SIGSTOP' | 'SIGCONT'): Promise<void> {
  const namespace = namespaceOf(initPid);
  if (namespace === undefined) return;
  const signalled = new Set<number>();
  for (let scan = 0; scan < 20; scan++) {
    const fresh = pidsIn(namespace).filter((pid) => !signalled.has(pid));
    if (fresh.length === 0 && scan > 0) return;
    for (const pid of fresh) {
      signalled.add(pid);
      try {
        process.kill(pid, signal);
      } catch {
        // exited meanwhile
      }
    }
    await sleep(5);
  }
}

function namespaceOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

function pidsIn(namespace: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => namespaceOf(pid) === namespace);
}
