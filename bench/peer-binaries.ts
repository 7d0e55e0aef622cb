import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The peer's two programs, built from source with the Go toolchain once and kept in a cache
// outside the project's tracked files: telemetrygen (the load) and an OpenTelemetry Collector
// with the OTLP receiver, the batch processor and the Kafka exporter.
//
// Versions are pinned so that runs months apart measure the same programs. Each is what the Go
// module proxy resolved when this bench was written (2026-11): telemetrygen@latest was v0.161.0;
// kafkaexporter is served only at v0.155.0, so the builder and the Collector's core components
// are v0.155.0 too, and the core's stable modules (the file config provider) the matching v1.61.0.
export const peerVersions = {
  telemetrygen: 'v0.161.0',
  collector: 'v0.155.0',
  collectorStable: 'v1.61.0',
} as const;

const contrib = 'github.com/open-telemetry/opentelemetry-collector-contrib';
const core = 'go.opentelemetry.io/collector';

/** The Collector's components; the builder's manifest lists them with their versions. */
const collectorComponents = {
  receivers: [`${core}/receiver/otlpreceiver ${peerVersions.collector}`],
  processors: [`${core}/processor/batchprocessor ${peerVersions.collector}`],
  exporters: [`${contrib}/exporter/kafkaexporter ${peerVersions.collector}`],
  // The file holds the configuration; the env provider is the Collector's default scheme.
  providers: [
    `${core}/confmap/provider/fileprovider ${peerVersions.collectorStable}`,
    `${core}/confmap/provider/envprovider ${peerVersions.collectorStable}`,
  ],
};

export interface PeerBinaries {
  telemetrygen: string;
  collector: string;
}

/** Builds what is missing (minutes the first time, each step skipped once its binary exists). */
export function buildPeerBinaries(cacheDir: string, log: (line: string) => void): PeerBinaries {
  requireGo();
  const telemetrygen = goInstall(cacheDir, `${contrib}/cmd/telemetrygen`, peerVersions.telemetrygen, log);
  const builder = goInstall(cacheDir, `${core}/cmd/builder`, peerVersions.collector, log);
  return { telemetrygen, collector: buildCollector(cacheDir, builder, log) };
}

/** `go install module@version` into a folder named for the version, so a new pin builds anew. */
function goInstall(cacheDir: string, module: string, version: string, log: (line: string) => void): string {
  const name = module.split('/').at(-1)!;
  const folder = join(cacheDir, `${name}@${version}`);
  const binary = join(folder, name);
  if (existsSync(binary)) return binary;
  timed(log, `${name} ${version}`, () => go(['install', `${module}@${version}`], { GOBIN: folder }));
  return binary;
}

function buildCollector(cacheDir: string, builder: string, log: (line: string) => void): string {
  // Named for its components too, so that a changed list builds a new Collector.
  const components = createHash('sha256').update(JSON.stringify(collectorComponents)).digest('hex');
  const folder = join(cacheDir, `otelcol-peer@${peerVersions.collector}-${components.slice(0, 8)}`);
  const binary = join(folder, 'otelcol-peer');
  if (existsSync(binary)) return binary;
  mkdirSync(folder, { recursive: true });
  const manifest = join(folder, 'builder.yaml');
  // JSON is YAML; the builder reads either.
  writeFileSync(
    manifest,
    JSON.stringify(
      {
        dist: {
          module: 'orrery.invalid/otelcol-peer',
          name: 'otelcol-peer',
          description: "Orrery's peer in bench/peer.ts",
          output_path: folder,
          version: peerVersions.collector.slice(1),
        },
        ...Object.fromEntries(
          Object.entries(collectorComponents).map(([kind, modules]) => [
            kind,
            modules.map((gomod) => ({ gomod })),
          ]),
        ),
        // The Collector's own metrics (otelcol_exporter_sent_spans) come from the service's
        // telemetry; the builder leaves it out unless named.
        telemetry: {
          gomod: `${core}/service ${peerVersions.collector}`,
          import: `${core}/service/telemetry/otelconftelemetry`,
        },
      },
      null,
      2,
    ),
  );
  // Strict versioning: the build fails if a component pulls in a core other than v0.155.0.
  timed(log, `the Collector ${peerVersions.collector} (builder)`, () =>
    run(builder, ['--config', manifest, '--skip-strict-versioning=false']),
  );
  if (!existsSync(binary)) throw new Error(`the builder finished but ${binary} is not there`);
  return binary;
}

function requireGo(): void {
  const probe = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    throw new Error('bench/peer.ts builds its peer from source: put Go 1.25 or later on PATH (go.dev/dl)');
}

function go(args: string[], env: NodeJS.ProcessEnv): void {
  run('go', args, env);
}

/** Runs a build step with its output on our stderr (stdout is for the figures). */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 2, 2], env: { ...process.env, ...env } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status})`);
}

function timed(log: (line: string) => void, what: string, step: () => void): void {
  log(`building ${what}, once ...`);
  const started = performance.now();
  step();
  log(`built ${what} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
