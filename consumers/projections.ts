import type { ClickHouseClient } from '../platform/clickhouse.ts';
import type { PgPool } from '../platform/postgres.ts';
import type { AdmissionFates } from '../projections/admission-gate.ts';
import { orgPostgresProjection } from '../projections/org.ts';
import { personPostgresProjection } from '../projections/person.ts';
import type { Projection } from '../projections/projection.ts';
import { runPostgresProjection } from '../projections/run-postgres.ts';
import { sandboxPostgresProjection } from '../projections/sandbox-postgres.ts';
import { spansClickHouseProjection } from '../projections/spans-clickhouse.ts';
import { templatePostgresProjection } from '../projections/template-postgres.ts';
import { usageClickHouseProjection } from '../projections/usage-clickhouse.ts';
import { usagePostgresProjection } from '../projections/usage-postgres.ts';
import { dropUndecidedGroups, groupFates } from '../stores/admission-groups.ts';
import type { ConsumerGroupId } from './groups.ts';

/**
 * Every consumer group the consumers process runs, by its id (consumers/groups.ts). The spans'
 * projection reads the admission groups' fates from the ingest ledger's database, `ledger` (the
 * read models' `pool` unless given): they are not on the topic, so a rebuild of the read models
 * from the topics into new databases reads them where the ledger is.
 */
export function allProjections(stores: { pool: PgPool; clickhouse: ClickHouseClient; ledger?: PgPool }): {
  [G in ConsumerGroupId]: Projection<unknown>;
} {
  return {
    'orrery-org-postgres': orgPostgresProjection(stores.pool) as Projection<unknown>,
    'orrery-person-postgres': personPostgresProjection(stores.pool) as Projection<unknown>,
    'orrery-usage-clickhouse': usageClickHouseProjection(stores.clickhouse) as Projection<unknown>,
    'orrery-usage-postgres': usagePostgresProjection(stores.pool) as Projection<unknown>,
    'orrery-spans-clickhouse': spansClickHouseProjection(
      stores.clickhouse,
      admissionFates(stores.ledger ?? stores.pool),
    ) as Projection<unknown>,
    'orrery-sandbox-postgres': sandboxPostgresProjection(stores.pool) as Projection<unknown>,
    'orrery-run-postgres': runPostgresProjection(stores.pool) as Projection<unknown>,
    'orrery-template-postgres': templatePostgresProjection(stores.pool) as Projection<unknown>,
  };
}

/** The admission groups' fates in Postgres, as the spans' projection asks for them. */
export function admissionFates(pool: PgPool): AdmissionFates {
  return {
    read: (groupIds) => groupFates(pool, groupIds),
    dropUndecided: (groupIds) => dropUndecidedGroups(pool, groupIds),
  };
}
