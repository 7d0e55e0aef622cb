import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { identifier } from '../../platform/clickhouse.ts';
import type { Config } from '../../platform/config.ts';
import { type Component, stackPaths } from './component.ts';
import { startDaemon, waitUntil } from './processes.ts';

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
