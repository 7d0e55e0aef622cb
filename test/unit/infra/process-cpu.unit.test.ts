import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  type CpuReading,
  type CpuSpent,
  cpuBetween,
  cpuLine,
  processCpuMs,
  readCpu,
  stolenMs,
} from '../../../bench/process-cpu.ts';

describe("the benches' CPU by part", () => {
  it('counts what each part spent in between, a process started in between whole, and the steal', () => {
    const before: CpuReading = {
      processes: new Map([
        [10, { part: 'api', ms: 500 }],
        [11, { part: 'postgres', ms: 100 }],
        [12, { part: 'postgres', ms: 40 }],
      ]),
      stolenMs: 1_000,
    };
    const after: CpuReading = {
      processes: new Map([
        [10, { part: 'api', ms: 800 }],
        [11, { part: 'postgres', ms: 130 }],
        [12, { part: 'postgres', ms: 40 }],
        [13, { part: 'postgres', ms: 20 }],
        [14, { part: 'clickhouse', ms: 0 }],
      ]),
      stolenMs: 1_250,
    };
    expect(cpuBetween(before, after)).toEqual({
      byPart: [
        ['api', 300],
        ['postgres', 50],
      ],
      stolenMs: 250,
    });
  });

  it('prints each part per 1,000 units and the cores it kept busy, and the cores the host took', () => {
    const spent: CpuSpent = {
      byPart: [
        ['clickhouse', 6000],
        ['api', 3000],
      ],
      stolenMs: 2500,
    };
    expect(cpuLine(spent, 100_000, 'spans', 10)).toBe(
      'CPU per 1,000 spans (cores busy): clickhouse 60 ms (0.60), api 30 ms (0.30); all 90 ms (0.90); taken by the host (steal): 0.25 cores',
    );
  });

  it("reads the host's steal as a count that only grows", () => {
    const first = stolenMs();
    expect(Number.isInteger(first) && first >= 0).toBe(true);
    expect(stolenMs()).toBeGreaterThanOrEqual(first);
  });

  it('reads a real process by its command line, and its CPU as it spends it', async () => {
    // A process named like the API's, burning CPU until it is stopped.
    const child = spawn(process.execPath, ['-e', 'for(;;){}', 'api/main.ts']);
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const pid = child.pid!;
      const first = readCpu().processes.get(pid);
      expect(first?.part).toBe('api');
      const started = processCpuMs(pid);
      for (let waited = 0; processCpuMs(pid) <= started && waited < 200; waited += 1)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(processCpuMs(pid)).toBeGreaterThan(started);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
