import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { identifier } from '../../platform/clickhouse.ts';
import type { Config } from '../../platform/config.ts';
import { type Component, stackPaths } from './component.ts';
import { readPid, startDaemon, waitUntil } from './processes.ts';

/** The platform's database, made before its migrations run (they run inside it). */
export function createDatabaseStatement(database: string): string {
  return `CREATE DATABASE IF NOT EXISTS ${identifier(database)}`;
}

/** ClickHouse from Debian's `clickhouse-server` (18.16), with its own config, data path and ports. */
export function clickhouseComponent(config: Config): Component {
  const { home, daemon } = stackPaths(config, 'clickhouse');
  const port = Number(new URL(config.clickhouse.url).port || 8123);
  const configFile = join(home, 'config.xml');

  return {
    name: 'clickhouse',
    port,
    daemons: [daemon],
    install() {
      for (const dir of ['data', 'tmp', 'user_files', 'format_schemas'])
        mkdirSync(join(home, dir), { recursive: true });
      writeFileSync(
        configFile,
        serverConfig({
          home,
          httpPort: port,
          tcpPort: config.clickhouse.nativePort,
          logFile: daemon.logFile,
        }),
      );
      writeFileSync(join(home, 'users.xml'), usersConfig());
    },
    async healthy() {
      const response = await fetch(`http://127.0.0.1:${port}/ping`, { signal: AbortSignal.timeout(1000) });
      return response.ok;
    },
    async start() {
      startDaemon(daemon, { command: 'clickhouse-server', args: [`--config-file=${configFile}`], cwd: home });
      await waitUntil(daemon, port, this.healthy, 60_000);
    },
    async provision() {
      const pid = readPid(daemon);
      if (pid !== undefined) lowerMergePriority(pid);
      const database = config.clickhouse.database;
      const response = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        body: createDatabaseStatement(database),
      });
      if (!response.ok)
        throw new Error(`clickhouse: could not create database ${database}: ${await response.text()}`);
    },
  };
}

/**
 * The niceness of the server's merge threads. On two cores busy with ingest, a merge took CPU
 * from the inserts that make spans queryable: 60 s of bench/ingest --rate 20000, merge threads
 * alternated between nice 0 and 10 in five pairs, gave a queryable p99 of 2,096-4,450 ms at 0 and
 * 1,420-2,298 ms at 10, lower in each pair. Merges still run whenever inserts leave CPU free.
 * Releases since late 2025 have this as a server setting (`os_threads_nice_value_merge_mutate`);
 * 18.16 does not, so the stack sets it on the threads itself.
 */
export const mergeThreadNiceness = 10;
/** 18.16's merge and mutation pool: a fixed set of threads, made as the server starts. */
const mergeThreadName = 'BackgrProcPool';

/** The ids of a process's threads that carry `name` (Linux: /proc/<pid>/task/<tid>/comm). */
export function threadsNamed(pid: number, name: string): number[] {
  const tasks = `/proc/${pid}/task`;
  return readdirSync(tasks)
    .filter((tid) => {
      try {
        return readFileSync(join(tasks, tid, 'comm'), 'utf8').trim() === name;
      } catch {
        return false; // the thread ended meanwhile
      }
    })
    .map(Number);
}

/** Sets the server's merge threads to `mergeThreadNiceness` (on every start or reuse: idempotent). */
function lowerMergePriority(pid: number): void {
  for (const tid of threadsNamed(pid, mergeThreadName)) {
    try {
      setPriority(tid, mergeThreadNiceness);
    } catch (error) {
      // A thread that ended since it was listed (the server stopping) needs no priority.
      // os.setPriority throws a SystemError carrying the errno's name in `info`.
      if ((error as { info?: { code?: string } }).info?.code !== 'ESRCH') throw error;
    }
  }
}

/** Where the local stack's server listens and keeps its files. */
export interface ClickHouseServerPlace {
  home: string;
  httpPort: number;
  tcpPort: number;
  logFile: string;
}

// Small caches and a per-query memory cap keep the server within a few hundred MB beside the
// JVMs, the API and the tests on a 2-core machine.
export function serverConfig({ home, httpPort, tcpPort, logFile }: ClickHouseServerPlace): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>${logFile}</log>
    <errorlog>${logFile.replace(/\.log$/, '.err.log')}</errorlog>
    <size>100M</size>
    <count>2</count>
  </logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>1024</max_connections>
  <keep_alive_timeout>10</keep_alive_timeout>
  <max_concurrent_queries>100</max_concurrent_queries>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mark_cache_size>268435456</mark_cache_size>
  <path>${home}/data/</path>
  <tmp_path>${home}/tmp/</tmp_path>
  <user_files_path>${home}/user_files/</user_files_path>
  <format_schema_path>${home}/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
</yandex>
`;
}

/** The `default` user without password, from loopback only. */
export const usersConfig = () => `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>2000000000</max_memory_usage>
      <use_uncompressed_cache>0</use_uncompressed_cache>
      <load_balancing>random</load_balancing>
      <!-- Four merge threads, not 16, for a stack on two cores: 60 s of eight LLM exporters
           (bench/ingest, alternated with restarts) took 31-35 ms of ClickHouse CPU per 1,000
           spans against 40-42 with 16, at 16,800-17,000 spans/s against 14,800-16,100. -->
      <background_pool_size>4</background_pool_size>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</yandex>
`;
