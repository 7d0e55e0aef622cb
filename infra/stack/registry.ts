import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../platform/config.ts';
import { type Component, stackPaths } from './component.ts';
import { mavenCopy } from './install.ts';
import { run, startDaemon, waitUntil } from './processes.ts';

export const registryVersion = '3.0.9';

/**
 * Apicurio Registry from Maven Central's `-all.tar.gz`, serving the Confluent-compatible API at
 * /apis/ccompat/v7. Its storage is the stack's Postgres (database `registry`), so schema ids
 * survive restarts and messages already on Kafka stay decodable.
 */
export function registryComponent(config: Config): Component {
  const { home, daemon } = stackPaths(config, 'registry');
  const archiveDir = join(home, 'archive');
  const appDir = join(home, 'app');
  const url = new URL(config.registry.url);
  const port = Number(url.port || 80);
  const { host: pgHost, port: pgPort, user, password } = config.postgres;

  return {
    name: 'registry',
    port,
    daemons: [daemon],
    install(log) {
      mavenCopy([`io.apicurio:apicurio-registry-app:${registryVersion}:tar.gz:all`], archiveDir, log, {
        transitive: false,
      });
      const runner = join(appDir, `apicurio-registry-app-${registryVersion}-runner.jar`);
      if (existsSync(runner)) return;
      mkdirSync(appDir, { recursive: true });
      const archive = readdirSync(archiveDir).find((file) => file.endsWith('.tar.gz'));
      if (!archive) throw new Error(`registry: no archive in ${archiveDir}`);
      run('tar', ['-xzf', join(archiveDir, archive), '-C', appDir]);
    },
    async healthy() {
      const response = await fetch(`${config.registry.url}/apis/ccompat/v7/subjects`, {
        signal: AbortSignal.timeout(2000),
      });
      return response.ok;
    },
    async start() {
      startDaemon(daemon, {
        command: 'java',
        args: [
          '-Xms64m',
          '-Xmx384m',
          '-XX:+UseSerialGC',
          '-jar',
          `apicurio-registry-app-${registryVersion}-runner.jar`,
        ],
        cwd: appDir,
        env: {
          QUARKUS_HTTP_HOST: url.hostname,
          QUARKUS_HTTP_PORT: String(port),
          QUARKUS_PROFILE: 'prod',
          APICURIO_STORAGE_KIND: 'sql',
          APICURIO_STORAGE_SQL_KIND: 'postgresql',
          APICURIO_DATASOURCE_URL: `jdbc:postgresql://${pgHost}:${pgPort}/registry`,
          APICURIO_DATASOURCE_USERNAME: user,
          APICURIO_DATASOURCE_PASSWORD: password,
          APICURIO_REST_DELETION_ARTIFACT_ENABLED: 'true',
          APICURIO_REST_DELETION_ARTIFACT_VERSION_ENABLED: 'true',
          APICURIO_CCOMPAT_LEGACY_ID_MODE_ENABLED: 'true',
        },
      });
      await waitUntil(daemon, port, this.healthy, 120_000);
    },
  };
}
