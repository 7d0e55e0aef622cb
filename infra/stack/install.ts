import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type DebianPackage, ensureDebianPackages } from '../../platform/debian-packages.ts';
import { commandExists, run } from './processes.ts';

/**
 * What the stack needs from Debian's packages, keyed by the file that shows it is installed. The
 * sandbox runtime's own (bubblewrap, debootstrap) are its to install (sandbox-runtime/host.ts).
 */
const stackPackages: DebianPackage[] = [
  { present: () => commandExists('java'), pkg: 'openjdk-17-jre-headless' },
  { present: () => commandExists('mvn'), pkg: 'maven' },
  { present: () => postgresBinDir() !== undefined, pkg: 'postgresql' },
  { present: () => commandExists('clickhouse-server'), pkg: 'clickhouse-server' },
  // Makes the TLS material of the local secured Kafka cluster (infra/stack/tls.ts).
  { present: () => commandExists('openssl'), pkg: 'openssl' },
];

export function ensureStackPackages(log: (line: string) => void): Promise<void> {
  return ensureDebianPackages(stackPackages, log);
}

export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/**
 * Copies Maven artifacts (with their runtime dependencies) into `outputDir`. Maven's local
 * repository (~/.m2) is the download cache, so a second install, or CI on the same machine,
 * downloads nothing.
 */
export function mavenCopy(
  artifacts: string[],
  outputDir: string,
  log: (line: string) => void,
  { transitive = true } = {},
): void {
  const marker = join(outputDir, '.installed');
  const wanted = artifacts.join('\n');
  if (existsSync(marker) && spawnSync('cat', [marker], { encoding: 'utf8' }).stdout === wanted) return;
  mkdirSync(outputDir, { recursive: true });
  log(`fetching from Maven Central (cached in ${join(homedir(), '.m2')}): ${artifacts.join(', ')}`);
  if (!transitive) {
    // An archive such as Apicurio's `-all.tar.gz` has no resolvable parent: copy the file alone.
    for (const artifact of artifacts) {
      run('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=${artifact}`, `-DoutputDirectory=${outputDir}`]);
    }
    writeFileSync(marker, wanted);
    return;
  }
  const pomDir = join(outputDir, '.pom');
  mkdirSync(pomDir, { recursive: true });
  const dependencies = artifacts
    .map((coordinates) => {
      const [groupId, artifactId, version, type, classifier] = coordinates.split(':');
      return (
        `<dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version>` +
        (type ? `<type>${type}</type>` : '') +
        (classifier ? `<classifier>${classifier}</classifier>` : '') +
        '</dependency>'
      );
    })
    .join('');
  writeFileSync(
    join(pomDir, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>` +
      `<groupId>orrery.stack</groupId><artifactId>stack</artifactId><version>1</version>` +
      `<dependencies>${dependencies}</dependencies></project>`,
  );
  run('mvn', [
    '-q',
    '-B',
    '-f',
    join(pomDir, 'pom.xml'),
    'dependency:copy-dependencies',
    `-DoutputDirectory=${outputDir}`,
    '-DincludeScope=runtime',
  ]);
  writeFileSync(marker, wanted);
}
