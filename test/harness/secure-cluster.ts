import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { platformNodeOptions } from '../../infra/node-options.ts';
import { provision } from '../../infra/provision.ts';
import { KafkaCluster } from '../../infra/stack/kafka.ts';
import { ensureTlsMaterial } from '../../infra/stack/tls.ts';
import { type Config, config, parseConfig } from '../../platform/config.ts';
import { eventually } from './eventually.ts';

// A second tenant of the local stack for the failure tests: a three-node Kafka cluster that
// speaks SASL_SSL (SCRAM) as a managed one does, its own Postgres and ClickHouse databases (the
// read models follow one cluster), and the platform's processes started as `npm start` starts
// them, configured only through ORRERY_* variables.

const root = config().stackDir;

export interface SecureTenant {
  cluster: KafkaCluster;
  /** The ORRERY_* variables that point a process at this tenant. */
  environment: Record<string, string>;
  config: Config;
  stop(): Promise<void>;
}

/** The password of the cluster's SCRAM user, made once beside its data. */
function scramPassword(): string {
  const file = join(root, 'kafka-secure', 'scram-password');
  if (!existsSync(file)) {
    mkdirSync(join(root, 'kafka-secure'), { recursive: true });
    writeFileSync(file, randomBytes(18).toString('base64url'));
  }
  return readFileSync(file, 'utf8').trim();
}

/**
 * Starts the tenant from nothing each time (a new cluster, empty databases), so a run neither
 * depends on nor replays what an earlier run left; the TLS material and the jars are reused.
 */
export async function startSecureTenant(
  name: string,
  overrides: Record<string, string>,
  log: (line: string) => void,
): Promise<SecureTenant> {
  const tls = ensureTlsMaterial(join(root, 'kafka-secure', 'tls'));
  const cluster = new KafkaCluster({
    name: 'kafka-secure',
    root,
    nodes: 3,
    host: '127.0.0.1',
    clientPort: 29092,
    controllerPort: 29093,
    heapMb: 256,
    security: { tls, username: 'orrery', password: scramPassword() },
  });
  await cluster.stop();
  for (const node of cluster.nodes) rmSync(node.dataDir, { recursive: true, force: true });
  rmSync(join(root, 'kafka-secure', 'cluster-id'), { force: true });
  cluster.install(log);
  await cluster.start();
  const base = config();
  const postgresUrl = new URL(base.postgres.url);
  postgresUrl.pathname = `/${name}`;
  const environment: Record<string, string> = {
    ORRERY_KAFKA_BROKERS: cluster.nodes.map((node) => `127.0.0.1:${node.clientPort}`).join(','),
    ORRERY_KAFKA_TLS_CA: tls.ca,
    ORRERY_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
    ORRERY_KAFKA_SASL_USERNAME: 'orrery',
    ORRERY_KAFKA_SASL_PASSWORD: scramPassword(),
    ORRERY_TOPIC_REPLICATION_FACTOR: '3',
    ORRERY_POSTGRES_URL: postgresUrl.toString(),
    ORRERY_CLICKHOUSE_DATABASE: name,
    ...overrides,
  };
  await createDatabases(base, name);
  const tenantConfig = parseConfig({ ...process.env, ...environment });
  await provision(tenantConfig, log);
  return { cluster, environment, config: tenantConfig, stop: async () => void (await cluster.stop()) };
}

/** Empty Postgres and ClickHouse databases named `name`, beside the stack's own. */
export async function createDatabases(base: Config, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: base.postgres.url });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  for (const statement of [`DROP DATABASE IF EXISTS ${name}`, `CREATE DATABASE ${name}`]) {
    const response = await fetch(`${base.clickhouse.url}/`, { method: 'POST', body: statement });
    if (!response.ok) throw new Error(`clickhouse: ${statement} failed: ${await response.text()}`);
  }
}

/** One of the platform's processes (api/main.ts, consumers/main.ts), as `npm start` runs it. */
export class PlatformProcess {
  private child: ChildProcess | undefined;
  readonly port: number;

  constructor(
    readonly entry: 'api/main.ts' | 'consumers/main.ts',
    private readonly environment: Record<string, string>,
    port: number,
  ) {
    this.port = port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the process and resolves once it answers /readyz 200. */
  async start(timeoutMs = 60_000): Promise<void> {
    const portVariable = this.entry === 'api/main.ts' ? 'ORRERY_API_PORT' : 'ORRERY_CONSUMERS_PORT';
    this.child = spawn(process.execPath, [...platformNodeOptions, '--import', 'tsx', this.entry], {
      env: {
        ...process.env,
        ...this.environment,
        [portVariable]: String(this.port),
        ORRERY_SERVICE: this.entry.split('/')[0],
        ORRERY_SANDBOX_DIR: mkdtempSync(join(tmpdir(), 'orrery-tenant-sandboxes-')),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const child = this.child;
    await eventually(
      async () => {
        const ready = await fetch(`${this.url}/readyz`).then(
          (response) => response.ok,
          () => false,
        );
        if (ready) return true;
        if (child.exitCode !== null)
          throw new Error(`${this.entry} exited with ${child.exitCode} before it was ready`);
        return undefined;
      },
      timeoutMs,
      `${this.entry} to answer /readyz 200`,
    );
  }

  /** As a crash: SIGKILL, no drain. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}
