import { readFileSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitControllers, limitSettings, sizeLimits } from '../../../sandbox-runtime/limits.ts';
import { rootOnHost } from '../../../sandbox-runtime/user-namespace.ts';
import { freePort } from '../../harness/ports.ts';
import { givenRuntime, pathFromHost, prepareTimeoutMs, sandboxId } from './given.ts';

// Each sandbox is a process tree in its own namespaces, root inside and nobody outside, with no
// view of the host's files, processes or network, nor of another sandbox.

const { runtime, dir, cleanup } = givenRuntime();
const first = sandboxId('iso-a');
const second = sandboxId('iso-b');

beforeAll(async () => {
  await runtime.prepare();
  await runtime.create(first, { size: 'small' });
  await runtime.create(second, { size: 'standard' });
}, prepareTimeoutMs);
afterAll(cleanup);

const run = async (id: string, command: string) => (await runtime.exec(id, command)).result;

describe('a sandbox', () => {
  it('runs commands as root inside, under its id as hostname', async () => {
    expect(await run(first, 'id -u; id -g; hostname')).toEqual({
      exit_code: 0,
      stdout: `0\n0\n${first}\n`,
      stderr: '',
      truncated: false,
    });
  });

  it('is not root on the host: its files belong to its own mapped range', async () => {
    await run(first, 'echo mine > /root/owned');
    const stat = statSync(pathFromHost(dir, first, 'root/owned'));
    const range = (await runtime.status(first)).idRange;
    expect(range.applied).toBe(true);
    expect([stat.uid, stat.gid]).toEqual([rootOnHost(range), rootOnHost(range)]);
    expect(rootOnHost(range)).not.toBe(rootOnHost((await runtime.status(second)).idRange));
    // Root inside has no power over the host's kernel: mounting a new proc or loading a module fails.
    expect(
      (await run(first, 'cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname')).exit_code,
    ).not.toBe(0);
  });

  it("cannot see the host's files", async () => {
    const result = await run(first, `ls /work; ls ${process.cwd()}; ls ${dir}`);
    expect(result.exit_code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("cannot access '/work'");
  });

  it("cannot see another sandbox's files", async () => {
    await run(first, 'echo secret > /root/only-in-first');
    const result = await run(
      second,
      `cat /root/only-in-first; ls ${join(dir, first)}; find / -xdev -name only-in-first`,
    );
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('No such file');
    expect((await run(first, 'cat /root/only-in-first')).stdout).toBe('secret\n');
  });

  it('sees only its own processes', async () => {
    await runtime.exec(first, 'sleep 30 > /dev/null 2>&1 &');
    const processes = (await run(first, 'ps -e -o pid=,comm=')).stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    expect(processes).toContainEqual(['1', 'orrery-init']);
    expect(processes.map(([, name]) => name)).toContain('sleep');
    expect(new Set(processes.map(([, name]) => name))).toEqual(new Set(['orrery-init', 'sleep', 'sh', 'ps']));
    expect((await run(second, 'ps -e -o comm=')).stdout).not.toContain('sleep');
  });

  it("cannot reach the host's loopback, and the host reaches its ports only through the runtime", async () => {
    const host = createServer((socket) => socket.end('host\n'));
    const port = await freePort();
    await new Promise<void>((resolve) => host.listen(port, '127.0.0.1', resolve));
    const hostPort = (host.address() as { port: number }).port;
    try {
      const outbound = await run(first, `bash -c 'echo hi > /dev/tcp/127.0.0.1/${hostPort}'`);
      expect(outbound.exit_code).not.toBe(0);
      expect(outbound.stderr).toContain('Connection refused');
    } finally {
      host.close();
    }

    // A server inside, on its own loopback, answers through connect() and forward().
    const server = `perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:8765", Listen => 5, ReuseAddr => 1) or die; while ($c = $s->accept) { print $c "inside $ENV{HOSTNAME}\\n"; close $c }'`;
    await runtime.exec(first, `HOSTNAME=$(hostname) nohup ${server} > /dev/null 2>&1 &`);
    await expect
      .poll(() => run(first, 'cat /proc/net/tcp | grep -c ":223D 00000000:0000 0A"'), { timeout: 5000 })
      .toMatchObject({ exit_code: 0 });
    const stream = await runtime.connect(first, 8765);
    const answer = await new Promise<string>((resolve) => {
      let said = '';
      stream.on('data', (chunk: Buffer) => {
        said += chunk.toString();
      });
      stream.on('end', () => resolve(said));
    });
    expect(answer).toBe(`inside ${first}\n`);
    await expect(runtime.connect(second, 8765)).rejects.toThrow(/nothing listens on port 8765/);

    const forwarded = await runtime.forward(first, 8765);
    try {
      const viaHost = await fetchLine(forwarded.port);
      expect(viaHost).toBe(`inside ${first}\n`);
    } finally {
      await forwarded.close();
    }
  });

  it('has the limits its size maps to written in its cgroups', async () => {
    const status = await runtime.status(second);
    expect(status).toMatchObject({ id: second, state: 'running', size: 'standard', filesystem: 'overlay' });
    for (const controller of limitControllers) {
      const outcome = status.limits[controller];
      if (!outcome?.applied) throw new Error(`${controller} not applied: ${JSON.stringify(outcome)}`);
      for (const { file, value } of limitSettings(sizeLimits.standard, controller, outcome.version)) {
        expect(readFileSync(join(outcome.dir, file), 'utf8').trim().replace(/\s+/g, ' ')).toBe(value);
      }
    }
  });
});

function fetchLine(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let said = '';
    socket.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    socket.on('end', () => resolve(said));
    socket.on('error', reject);
  });
}
