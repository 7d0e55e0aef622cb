// Runs before `npm start` and `npm test` with nothing but Node: installs the project's npm
// dependencies on a fresh checkout (or after package-lock.json changed), so the README's two
// commands are all a newcomer runs.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const lock = 'package-lock.json';
const stamp = 'node_modules/.orrery-installed';
const lockText = readFileSync(lock, 'utf8');
const fresh = !existsSync(stamp) || readFileSync(stamp, 'utf8') !== lockText;
if (fresh) {
  process.stderr.write('[bootstrap] installing npm dependencies (npm ci)\n');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
  writeFileSync(stamp, lockText);
}
