import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// A port for anything a test listens on. Not the kernel's pick (listen on port 0): that comes from
// the ephemeral range, which every outbound connection also draws from, so by the time a daemon
// binds, a client socket of the stack being started may hold it (CI saw the model's server refused
// its port so). And podman publishes a container's port on one from that range with a DNAT rule in
// the host's firewall that can outlive the container (32 such rules were found here, one on the
// port a CI run's test API was given): every loopback connection to that port then goes to a
// container that is gone, and times out. Ports below the ephemeral range are taken only by
// listeners; the stacks' fixed ports lie below this window's start.

const windowStart = 30000;
const handedOut = new Set<number>();

function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > windowStart + 100 ? start : 32768;
  } catch {
    return 32768;
  }
}

const windowEnd = ephemeralStart();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port below the ephemeral range that nothing listens on now, and not handed out before by this process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = windowStart + Math.floor(Math.random() * (windowEnd - windowStart));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${windowStart}-${windowEnd - 1} after 200 tries; stop what listens there`);
}
