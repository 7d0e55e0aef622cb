import type { PgPool } from '../platform/postgres.ts';

// Each admission group's fate, kept or dropped (infra/migrations/postgres/1700000019000_admission-
// groups.sql): what makes a 503 true (issue 49, item 1). A group's spans go to Kafka while its
// ledger record waits in a transaction; that transaction inserts the group's row, kept, and commits
// only once Kafka acknowledged the spans. Anything else leaves the group undecided, and then
// dropped: by the API once it has answered 503, or by the spans' consumer once it has waited for
// the group longer than any commit of it can take. The consumer projects only a kept group's spans, so
// spans Kafka took for a request answered 503 never reach a read model, and the request sent again
// is admitted anew, counted once and stored once. The primary key decides when the API's commit
// and a consumer's drop race: the second to insert finds the first's row.

/**
 * The SQL of a recording statement's CTE that marks the group (`$n` placeholder) kept, when the
 * condition holds: a plain insert, so the statement fails on a group a consumer already dropped.
 */
export const keptGroupCte = (p: { group: string; when: string }) =>
  `kept_group AS (
     INSERT INTO admission_groups (group_id, kept) SELECT ${p.group}::uuid, true WHERE ${p.when}
   )`;

/** Whether each decided group was kept (true) or dropped (false); undecided ones are absent. */
export async function groupFates(pool: PgPool, groupIds: readonly string[]): Promise<Map<string, boolean>> {
  const { rows } = await pool.query<{ group_id: string; kept: boolean }>({
    name: 'admission-group-fates',
    text: `SELECT group_id, kept FROM admission_groups
            WHERE group_id = ANY(string_to_array($1, ',')::uuid[])`,
    values: [groupIds.join(',')],
  });
  return new Map(rows.map((row) => [row.group_id, row.kept]));
}

/**
 * Decides the undecided ones among the groups dropped. One whose recording is still in flight is
 * waited for (its uncommitted row holds the key), and stays what its commit made it.
 */
export async function dropUndecidedGroups(pool: PgPool, groupIds: readonly string[]): Promise<void> {
  await pool.query({
    name: 'admission-groups-drop',
    text: `INSERT INTO admission_groups (group_id, kept)
           SELECT unnest(string_to_array($1, ',')::uuid[]), false
           ON CONFLICT (group_id) DO NOTHING`,
    values: [groupIds.join(',')],
  });
}

/** Forgets the fates decided before `before`: no event of theirs is left to project. */
export async function forgetOldGroups(pool: PgPool, before: Date): Promise<number> {
  const forgotten = await pool.query('DELETE FROM admission_groups WHERE decided_at < $1', [before]);
  return forgotten.rowCount ?? 0;
}
