import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Config } from '../../platform/config.ts';
import { type Component, stackPaths } from './component.ts';
import { postgresBinDir } from './install.ts';
import { isAlive, run, startDaemon, waitUntil } from './processes.ts';

/** PostgreSQL from Debian's packages, one cluster under the stack folder. */
export function postgresComponent(config: Config): Component {
  const { home, daemon } = stackPaths(config, 'postgres');
  const dataDir = join(home, 'data');
  const socketDir = join(home, 'socket');
  const { port, user, password, database } = config.postgres;
  const bin = (name: string) => join(postgresBinDir() ?? '/usr/lib/postgresql/15/bin', name);

  async function query(sql: string, db = 'postgres') {
    const client = new pg.Client({ host: '127.0.0.1', port, user, password, database: db });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  }

  return {
    name: 'postgres',
    port,
    daemons: [daemon],
    install() {
      mkdirSync(socketDir, { recursive: true });
      if (existsSync(join(dataDir, 'PG_VERSION'))) return;
      mkdirSync(home, { recursive: true });
      const passwordFile = join(home, 'initdb-password');
      writeFileSync(passwordFile, password);
      run(
        bin('initdb'),
        [
          '-D',
          dataDir,
          '-U',
          user,
          `--pwfile=${passwordFile}`,
          '--auth=scram-sha-256',
          '-E',
          'UTF8',
          '--no-locale',
        ],
        { unprivileged: true },
      );
    },
    async healthy() {
      const result = await query('select 1 as ok').catch(() => undefined);
      return result?.rows[0]?.ok === 1;
    },
    async start() {
      startDaemon(daemon, {
        command: bin('postgres'),
        args: [
          '-D',
          dataDir,
          '-p',
          String(port),
          '-k',
          socketDir,
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'max_connections=200',
          '-c',
          // The ingest ledger's indexes are read for every request; keep them in shared memory.
          'shared_buffers=1GB',
        ],
        unprivileged: true,
      });
      await waitUntil(daemon, port, this.healthy, 60_000);
    },
    // A crash leaves postmaster.pid behind. Postgres sees past it when its pid is gone, but refuses
    // to start while that pid has been taken by another process since (common after a reboot).
    async recover() {
      const lockFile = join(dataDir, 'postmaster.pid');
      if (!existsSync(lockFile)) return;
      const pid = Number(readFileSync(lockFile, 'utf8').split('\n')[0]);
      if (!isPostmaster(pid)) rmSync(lockFile, { force: true });
    },
    async provision() {
      for (const name of [database, 'registry']) {
        const exists = await query(`select 1 from pg_database where datname = '${name}'`);
        if (exists.rowCount === 0) await query(`create database "${name}"`);
      }
    },
  };
}

function isPostmaster(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return false;
  }
}
