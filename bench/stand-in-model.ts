import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completion } from '../test/harness/model-server.ts';

// The benchmarks' stand-in model, run as a process of its own so that its work and pauses do not
// land in the load generator's measurements: an OpenAI-compatible chat-completions server that
// answers every request at once with the same line. It prints its base URL on the first line of
// stdout and serves until it is killed.
//   node --import tsx bench/stand-in-model.ts ['Password reset help'] [inputTokens] [outputTokens]

const [line = 'Password reset help', input = '40', output = '4'] = process.argv.slice(2);
const answer = completion(line, { input: Number(input), output: Number(output) }, 'stand-in');

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(answer));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`http://127.0.0.1:${port}/v1\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
