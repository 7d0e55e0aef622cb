// Runs a command in the terminal it is given and writes how it ended to a file, as JSON
// `{ code, signal }`: tmux's own record of a dead pane's status is sometimes never written (seen
// here with tmux 3.3a: the pane dead, no status, no signal). Ctrl-C reaches the command through
// the terminal's foreground process group; this process ignores it and waits.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const [file, command, ...args] = process.argv.slice(2);
process.on('SIGINT', () => {});
const child = spawn(command, args, { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  writeFileSync(file, JSON.stringify({ code, signal }));
  process.exit(0);
});
