import { type ChildProcess, spawn } from 'node:child_process';
import { platformNodeOptions } from './node-options.ts';

// `npm start`'s last step: the API, the consumers and the jobs as processes, stopped together. SIGTERM
// or SIGINT is passed on so each drains; if either exits, the other is stopped too.
const processes: ChildProcess[] = ['api/main.ts', 'consumers/main.ts', 'jobs/main.ts'].map((entry) =>
  spawn(process.execPath, [...platformNodeOptions, '--import', 'tsx', entry], {
    stdio: 'inherit',
    env: { ...process.env, ORRERY_SERVICE: entry.split('/')[0] },
  }),
);

let stopping = false;
function stopAll(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  for (const child of processes) if (child.exitCode === null) child.kill(signal);
}

process.on('SIGTERM', () => stopAll('SIGTERM'));
process.on('SIGINT', () => stopAll('SIGTERM'));
for (const child of processes) {
  child.on('exit', (code) => {
    if (!stopping && code !== 0) process.exitCode = code ?? 1;
    stopAll('SIGTERM');
    if (processes.every((other) => other.exitCode !== null || other.signalCode !== null)) process.exit();
  });
}
