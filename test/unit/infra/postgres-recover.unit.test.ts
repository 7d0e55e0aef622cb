import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresComponent } from '../../../infra/stack/postgres.ts';
import { parseConfig } from '../../../platform/config.ts';

// After a crash the stack's watcher calls `recover` before starting Postgres again: a
// postmaster.pid whose pid is gone, or now another program's, is removed; one held by a live
// postgres stays (that server would be corrupted by a second one).
const stackDir = mkdtempSync(join(tmpdir(), 'orrery-postgres-recover-'));
const dataDir = join(stackDir, 'postgres', 'data');
const lockFile = join(dataDir, 'postmaster.pid');
const component = postgresComponent(parseConfig({ ORRERY_STACK_DIR: stackDir }));
mkdirSync(dataDir, { recursive: true });

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

function lockedBy(pid: number): void {
  writeFileSync(lockFile, `${pid}\n${dataDir}\n1700000000\n15432\n`);
}

async function running(program: string): Promise<number> {
  const child = spawn(program, ['60'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return child.pid!;
}

describe('postgres recover', () => {
  it('removes a lock file whose process is gone', async () => {
    const child = spawn('true');
    const pid = child.pid!;
    await new Promise((resolve) => child.once('exit', resolve));
    lockedBy(pid);
    await component.recover!();
    expect(existsSync(lockFile)).toBe(false);
  });

  it('removes a lock file whose pid another program has taken since', async () => {
    lockedBy(await running('sleep'));
    await component.recover!();
    expect(existsSync(lockFile)).toBe(false);
  });

  it('keeps the lock file of a live postgres', async () => {
    const postgres = join(stackDir, 'postgres');
    copyFileSync('/bin/sleep', join(postgres, 'postgres'));
    lockedBy(await running(join(postgres, 'postgres')));
    await component.recover!();
    expect(existsSync(lockFile)).toBe(true);
  });

  it('does nothing without a lock file', async () => {
    const other = postgresComponent(
      parseConfig({ ORRERY_STACK_DIR: mkdtempSync(join(tmpdir(), 'orrery-pg-')) }),
    );
    await expect(other.recover!()).resolves.toBeUndefined();
  });
});
