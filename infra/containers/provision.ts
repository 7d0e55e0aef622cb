import { config } from '../../platform/config.ts';
import { provision } from '../provision.ts';
import { createDatabaseStatement } from '../stack/clickhouse.ts';

// The Orrery image's `provision` command, run once before the platform's processes start against
// a stack in containers: the ClickHouse database the migrations go into (the local stack makes it
// when it provisions its own server), then everything `npm start` provisions.
const settings = config();
const log = (line: string) => process.stderr.write(`[provision] ${line}\n`);
const created = await fetch(settings.clickhouse.url, {
  method: 'POST',
  body: createDatabaseStatement(settings.clickhouse.database),
});
if (!created.ok) throw new Error(`clickhouse: could not create the database: ${await created.text()}`);
await provision(settings, log);
log('done');
