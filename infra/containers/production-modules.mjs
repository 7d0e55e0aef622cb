// Run by the Containerfile's first stage with the project's Node: copies, from the checkout's
// node_modules (mounted read-only at `from`), the packages package-lock.json does not mark as
// development-only into `to`. Nothing is downloaded and nothing compiled: the Kafka client's
// native addon was built by `npm install` against Debian bookworm's libraries, the image's too.
//
//   node production-modules.mjs <package-lock.json> <from node_modules> <to node_modules>
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What a package carries that only building it needed (kept: what `require` loads at run time). */
const trims = {
  // librdkafka's sources (197 MB), static libraries and the objects of its build: the addon and its
  // two shared libraries (build/deps/*.so.1, found through the addon's rpath) are what it loads.
  '@confluentinc/kafka-javascript': [
    'deps',
    'src',
    'build/Release/obj.target',
    'build/Release/.deps',
    'build/deps/include',
    'build/deps/librdkafka',
    'build/deps/pkgconfig',
    'build/deps/librdkafka.a',
    'build/deps/librdkafka-static.a',
    'build/deps/librdkafka++.a',
  ],
};

/** The project's Node is copied into the image by itself (the Containerfile), not as a module. */
const leftOut = new Set(['node']);

const [lockFile, from, to] = process.argv.slice(2);
if (!lockFile || !from || !to) throw new Error('usage: production-modules.mjs <lock> <from> <to>');
const { packages } = JSON.parse(readFileSync(lockFile, 'utf8'));

/** Where Node finds `name` required from the package at `path`: its own node_modules, then up. */
function resolve(path, name) {
  for (let dir = path; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!dir) return undefined;
  }
}

// From the root's dependencies, what they need at run time, transitively: the workspaces'
// dependencies (the dashboard's React, say) and every devDependency stay out.
const wanted = new Set();
const queue = [''];
while (queue.length > 0) {
  const path = queue.shift();
  const entry = packages[path];
  const needs = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
  for (const name of Object.keys(needs)) {
    if (path === '' && leftOut.has(name)) continue;
    const found = resolve(path, name);
    // Missing: an optional package for another platform, or an optional peer nobody installed.
    if (found === undefined || wanted.has(found) || !existsSync(join(from, found.slice(13)))) continue;
    wanted.add(found);
    queue.push(found);
  }
}

for (const path of wanted) {
  const name = path.slice('node_modules/'.length);
  const source = join(from, name);
  const target = join(to, name);
  mkdirSync(dirname(target), { recursive: true });
  // A nested node_modules holds packages of its own, each copied only if wanted.
  cpSync(source, target, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (file) => file === source || !file.slice(source.length).includes('/node_modules'),
  });
  for (const trim of trims[name.split('/node_modules/').pop()] ?? [])
    rmSync(join(target, trim), { recursive: true, force: true });
}
process.stdout.write(`copied ${wanted.size} packages the platform runs with into ${to}\n`);
