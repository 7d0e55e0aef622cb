import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

// `npm start` builds the dashboard (packages/dashboard) into its dist/, which the API serves under
// / (api/dashboard/plugin.ts). A build takes a few seconds, so it is skipped when dist/ was built
// from exactly the sources there are now: a stamp in dist/ holds the SHA-256 of every source
// file's path and contents, of @orrery/sandbox's sources (the dashboard compiles them, through the
// `@orrery/source` condition) and of package-lock.json (the libraries' versions). Contents, not
// modification times: a checkout, a copy or a clock never makes a stale build look fresh.

const dashboard = fileURLToPath(new URL('../packages/dashboard/', import.meta.url));
const sandboxSources = fileURLToPath(new URL('../packages/sandbox/src/', import.meta.url));
const lockfile = fileURLToPath(new URL('../package-lock.json', import.meta.url));
const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(dashboard, 'dist');
const stamp = join(dist, '.built-from');
/** Not sources: the build's output, installed packages, and the unit tests. */
const notSources = new Set(['dist', 'node_modules', 'test']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !notSources.has(entry.name))
    .flatMap((entry) =>
      entry.isDirectory()
        ? sourceFiles(join(dir, entry.name))
        : entry.isFile()
          ? [join(dir, entry.name)]
          : [],
    )
    .sort();
}

/** The SHA-256 of what a build is made from. */
export function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(dashboard), ...sourceFiles(sandboxSources), lockfile]) {
    hash.update(`${relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Builds the dashboard unless dist/ is a build of the sources as they are. */
export async function buildDashboard(log: (line: string) => void): Promise<'built' | 'up to date'> {
  const hash = sourcesHash();
  if (existsSync(join(dist, 'index.html')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash)
    return 'up to date';
  const started = Date.now();
  // React's production build (Vite builds the development one under any other NODE_ENV).
  process.env.NODE_ENV = 'production';
  await build({ root: dashboard, logLevel: 'warn' });
  writeFileSync(stamp, hash);
  log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s into ${dist}`);
  return 'built';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const log = (line: string) => process.stderr.write(`[dashboard] ${line}\n`);
  const outcome = await buildDashboard(log);
  if (outcome === 'up to date') log(`up to date (${dist})`);
}
