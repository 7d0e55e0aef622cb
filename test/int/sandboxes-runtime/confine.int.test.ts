import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxConfinementDir } from '../../../sandbox-runtime/confine.ts';
import { givenRuntime, prepareTimeoutMs, sandboxId } from './given.ts';

// Every process of a sandbox is confined as a Docker container is: Docker's default capabilities
// only, and Docker's default seccomp profile with no_new_privs; its init (bwrap) and whatever
// enters it later (exec, files, processes left running). Root inside holds every capability of
// its user namespace, so unconfined each refused call below would succeed.

const { runtime, cleanup } = givenRuntime();
const id = sandboxId('confine');

beforeAll(async () => {
  await runtime.prepare();
  await runtime.create(id, { size: 'small' });
}, prepareTimeoutMs);
afterAll(cleanup);

const run = async (command: string) => (await runtime.exec(id, command)).result;

/** Docker's default capabilities (CHOWN … AUDIT_WRITE) as /proc shows a set. */
const dockerCapabilities = '00000000a80425fb';
/**
 * What a confined process holds: Docker's capabilities, permitted and effective, no_new_privs (so
 * an execve as root cannot gain more than it has) and a seccomp filter (mode 2). bwrap leaves its
 * init's bounding set whole, which with no_new_privs grants nothing.
 */
const confined = { CapEff: dockerCapabilities, CapPrm: dockerCapabilities, NoNewPrivs: '1', Seccomp: '2' };

/** A process's capabilities, no_new_privs and seccomp mode, from its status. */
async function confinementOf(pid: string) {
  const { stdout } = await run(`grep -E '^(CapEff|CapPrm|Seccomp|NoNewPrivs):' /proc/${pid}/status`);
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/:\s+/)),
  );
}

describe('the confinement', () => {
  it("is Docker's capabilities and seccomp filter with no_new_privs, for the init and every command that enters", async () => {
    expect(await confinementOf('1')).toEqual(confined);
    expect(await confinementOf('self')).toEqual(confined);
    // A process an exec left running keeps it.
    await run('nohup sleep 300 >/dev/null 2>&1 &');
    const sleeper = (await run('pgrep -x sleep')).stdout.trim().split('\n')[0]!;
    expect(await confinementOf(sleeper)).toEqual(confined);
  });

  it("refuses what Docker's profile refuses a container: namespaces, mounts, keyrings, personalities", async () => {
    const unshare = await run('unshare --user --map-root-user true');
    expect(unshare.exit_code).not.toBe(0);
    expect(unshare.stderr).toContain('Operation not permitted');

    const mount = await run('mkdir -p /tmp/m && mount -t tmpfs none /tmp/m');
    expect(mount.exit_code).not.toBe(0);
    expect((await run('grep -c " /tmp/m " /proc/self/mounts')).stdout.trim()).toBe('0');

    // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0): syscall 250 on x86_64.
    const keyctl = await run(`perl -e 'syscall(250, 0, -3, 0) == -1 ? print "$!" : print "allowed"'`);
    expect(keyctl.stdout).toBe('Operation not permitted');

    // Only the personalities Docker allows: turning address randomization off is not one.
    const setarch = await run('setarch x86_64 -R true');
    expect(setarch.exit_code).not.toBe(0);
    expect(setarch.stderr).toContain('Operation not permitted');
  });

  it('cannot change its own network namespace: no CAP_NET_ADMIN, as in Docker', async () => {
    // SIOCSIFFLAGS on lo with no flags: taking the sandbox's loopback down needs CAP_NET_ADMIN.
    const down = await run(
      "python3 -c \"import socket, fcntl, struct; fcntl.ioctl(socket.socket(), 0x8914, struct.pack('16sH14s', b'lo', 0, b''))\"",
    );
    expect(down.exit_code).not.toBe(0);
    expect(down.stderr).toContain('PermissionError');
  });

  it('lets ordinary work run: processes, files, sockets, signals', async () => {
    const result = await run(
      'echo hi > /tmp/f && cat /tmp/f && (sleep 0.1 & wait) && ' +
        `perl -e 'use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0) or die "$!"; print "socket\\n"' && ` +
        'kill -0 $$ && echo signals',
    );
    expect(result).toMatchObject({ exit_code: 0, stdout: 'hi\nsocket\nsignals\n' });
  });

  it('cannot be changed from inside: its folder is a read-only mount root cannot remove', async () => {
    const write = await run(`touch ${sandboxConfinementDir}/x`);
    expect(write.stderr).toContain('Read-only file system');
    const unmount = await run(`umount ${sandboxConfinementDir}`);
    expect(unmount.exit_code).not.toBe(0);
    expect(await confinementOf('self')).toEqual(confined);
  });

  it('stays on after the sandbox restarts over its files and after a fork', async () => {
    await runtime.stop(id);
    await runtime.resume(id);
    const copy = sandboxId('confine-fork');
    await runtime.fork(id, copy);
    const inCopy = await runtime.exec(copy, "grep -E '^Seccomp:' /proc/1/status /proc/self/status");
    expect(inCopy.result.stdout).toBe('/proc/1/status:Seccomp:\t2\n/proc/self/status:Seccomp:\t2\n');
    await runtime.destroy(copy);
  });
});
