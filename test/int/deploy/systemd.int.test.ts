import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The systemd unit for one machine (deploy/systemd/orrery.service, issue 49, item 3). No systemd
// runs as PID 1 here, so the unit is not started: systemd's own `systemd-analyze verify` reads it
// as systemd would (its sections and settings, that its commands exist), pointed at this
// checkout, and what it runs is checked against what `npm start` runs.

const root = resolve(import.meta.dirname, '../../..');
const unitText = readFileSync(join(root, 'deploy/systemd/orrery.service'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'orrery-systemd-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Each `Key=value` of the unit, in order (comments and section headers left out). */
const settings = unitText
  .split('\n')
  .filter((line) => /^[A-Za-z]+=/.test(line))
  .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);
const setting = (key: string) => settings.find(([name]) => name === key)?.[1];

describe('deploy/systemd/orrery.service', () => {
  it('passes systemd-analyze verify, pointed at this checkout', () => {
    const unit = join(scratch, 'orrery.service');
    writeFileSync(unit, unitText.replaceAll('/opt/orrery', root));
    const verified = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    expect(verified.error, 'systemd-analyze is part of Debian’s systemd package').toBeUndefined();
    // Warnings about the machine's own units (none is loaded here) are not the unit's.
    const ours = verified.stderr.split('\n').filter((line) => line.includes('orrery.service'));
    expect(ours).toEqual([]);
    expect(verified.status).toBe(0);
  });

  it('runs what npm start runs: its preparation, then the supervisor, restarted whenever it ends', () => {
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    expect(scripts.start).toBe('npm run start:prepare && tsx infra/platform.ts');
    expect(setting('ExecStartPre')).toBe('/usr/bin/npm run start:prepare');
    expect(setting('ExecStart')).toBe('/opt/orrery/node_modules/.bin/node --import tsx infra/platform.ts');
    expect(setting('Restart')).toBe('always');
    // Only the supervisor is signalled: its processes end by themselves when it does, and the
    // stack's daemons and the sandboxes outlive a restart.
    expect(setting('KillMode')).toBe('process');
  });
});
