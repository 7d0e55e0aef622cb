import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { hostEnv, hostProgram } from '../../../sandbox-runtime/host.ts';

// hostProgram: a host program's absolute path on the host's own PATH, as `command -v` finds it,
// looked up without a shell (it is asked on every exec).
describe('hostProgram', () => {
  it('finds what command -v finds on the host PATH', () => {
    for (const name of ['nsenter', 'unshare', 'sh', 'mount']) {
      const byShell = execFileSync('/bin/sh', ['-c', `command -v ${name}`], {
        env: hostEnv,
        encoding: 'utf8',
      });
      expect(hostProgram(name)).toBe(byShell.trim());
    }
  });

  it('refuses a program the host lacks, saying what installs it', () => {
    expect(() => hostProgram('orrery-no-such-program')).toThrow(
      /^orrery-no-such-program is not installed; `npm run stack -- start` installs/,
    );
  });

  it('takes no directory for a program', () => {
    // `.` on each PATH entry names the entry itself: a directory one may search, not a program.
    expect(() => hostProgram('.')).toThrow(/is not installed/);
  });
});
