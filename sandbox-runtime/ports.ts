import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { hostEnv, hostProgram } from './host.ts';
import type { SandboxRecord } from './state.ts';

// Reaching a port a sandbox listens on (the desktop's VNC and DevTools ports, later).
//
// Each sandbox has its own network namespace with only a loopback interface, so it cannot reach
// the host's services (this host's Postgres, Kafka and ClickHouse listen on 127.0.0.1) nor other
// sandboxes, every sandbox can use any port, and nothing it opens is exposed by accident. The
// price: no way in except this one, and no way out to the internet yet (a browser will need it:
// slirp4netns, from Debian's packages, gives outbound access without exposing the host's
// loopback; not done yet). The other choice, sharing the host's network namespace with
// per-sandbox port allocation, needs no forwarding but lets every sandbox connect to everything
// on the host's loopback and bind any free port: refused for that reason.
//
// The way in: a relay process in the sandbox's network namespace only (`nsenter --net`), the
// host's own node, pipes its stdin and stdout to 127.0.0.1:<port> inside. One process per
// connection (about 40 MB and 50 ms to start): fine for a VNC screen or a DevTools socket.

const relay =
  "const s = require('node:net').connect(Number(process.argv[1]), '127.0.0.1', () => {" +
  "  process.stderr.write('connected\\n'); process.stdin.pipe(s); s.pipe(process.stdout); });" +
  "s.on('error', (e) => { process.stderr.write('failed ' + e.code + '\\n'); process.exit(1); });";

/** A byte stream to 127.0.0.1:<port> inside the sandbox; rejects if nothing listens there. */
export function connectPort(record: SandboxRecord, port: number): Promise<Duplex> {
  if (record.init === null) return Promise.reject(new Error(`sandbox ${record.id} has no init`));
  const argv = ['-t', String(record.init.pid), '--net', '--', process.execPath, '-e', relay, String(port)];
  const child = spawn(hostProgram('nsenter'), argv, { env: hostEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.startsWith('connected\n')) {
        resolve(relayStream(child));
      } else if (said.includes('\n')) {
        reject(new Error(`nothing listens on port ${port} in sandbox ${record.id} (${said.trim()})`));
      }
    });
    child.on('error', reject);
    child.on('exit', () => reject(new Error(`the relay to port ${port} in sandbox ${record.id} ended`)));
  });
}

/** The relay's stdout and stdin as one stream; its end is the connection's end, not an error. */
function relayStream(child: ChildProcessWithoutNullStreams): Duplex {
  const stream = new Duplex({
    read: () => {
      child.stdout.resume();
    },
    write: (chunk: Buffer, _encoding, done) => {
      child.stdin.write(chunk, done);
    },
    final: (done) => {
      child.stdin.end(done);
    },
    destroy: (error, done) => {
      child.kill();
      done(error);
    },
  });
  child.stdout.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) child.stdout.pause();
  });
  child.stdout.on('end', () => stream.push(null));
  child.stdin.on('error', () => {}); // the relay is gone: the readable side has ended already
  return stream;
}

/** A host port on 127.0.0.1 whose connections reach `port` inside the sandbox. */
export async function forwardPort(
  connect: () => Promise<Duplex>,
): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = createServer((socket: Socket) => {
    connect().then(
      (inside) => {
        socket.pipe(inside).pipe(socket);
        const end = () => {
          socket.destroy();
          inside.destroy();
        };
        socket.on('close', end);
        inside.on('close', end);
        socket.on('error', end);
        inside.on('error', end);
      },
      () => socket.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the forwarding server has no port');
  return {
    port: address.port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
