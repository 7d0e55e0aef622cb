import { config } from '../../platform/config.ts';
import { provisionNewStack } from '../provision.ts';

// The Orrery image's `provision` command, run once before the platform's processes start against
// a stack in containers: the ClickHouse database, then everything `npm start` provisions.
await provisionNewStack(config(), (line) => process.stderr.write(`[provision] ${line}\n`));
