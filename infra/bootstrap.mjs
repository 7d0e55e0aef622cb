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
  // `npm install` with the lock file, not `npm ci`: npm 11 leaves other platforms' optional
  // binaries (biome, rollup) out of the lock, and `npm ci` then refuses it as out of sync.
  process.stderr.write('[bootstrap] installing npm dependencies (npm install, from package-lock.json)\n');
  execSync('npm install --no-audit --no-fund', { stdio: 'inherit' });
  writeFileSync(stamp, lockText);
}
