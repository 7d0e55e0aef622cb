import type { DeviceLogin, DeviceLoginStatus } from '../domain/people/device-login.ts';
import type { PgPool } from '../platform/postgres.ts';

// Command-line logins in progress (migration 1700000009000), by the SHA-256 of the device code.
// Every change of status is one conditional UPDATE, so two polls or two approvals race safely.

export interface StoredDeviceLogin extends DeviceLogin {
  userCode: string;
  clientName: string;
  orgId: string | undefined;
  personId: string | undefined;
  createdAt: Date;
}

interface DeviceLoginRow {
  user_code: string;
  client_name: string;
  status: DeviceLoginStatus;
  org_id: string | null;
  person_id: string | null;
  interval_seconds: number;
  last_polled_at: Date | null;
  created_at: Date;
  expires_at: Date;
}

const columns =
  'user_code, client_name, status, org_id, person_id, interval_seconds, last_polled_at, created_at, expires_at';

function fromRow(row: DeviceLoginRow): StoredDeviceLogin {
  return {
    userCode: row.user_code,
    clientName: row.client_name,
    status: row.status,
    orgId: row.org_id ?? undefined,
    personId: row.person_id ?? undefined,
    intervalSeconds: row.interval_seconds,
    lastPolledAt: row.last_polled_at ?? undefined,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** False when the user code is taken (the caller draws another). */
export async function insertDeviceLogin(
  pool: PgPool,
  deviceCodeHash: string,
  login: Pick<StoredDeviceLogin, 'userCode' | 'clientName' | 'intervalSeconds' | 'createdAt' | 'expiresAt'>,
): Promise<boolean> {
  const { rowCount } = await pool.query(
    `INSERT INTO device_logins (device_code_hash, user_code, client_name, status, interval_seconds, created_at, expires_at)
     VALUES ($1, $2, $3, 'pending', $4, $5, $6) ON CONFLICT (user_code) DO NOTHING`,
    [
      deviceCodeHash,
      login.userCode,
      login.clientName,
      login.intervalSeconds,
      login.createdAt,
      login.expiresAt,
    ],
  );
  return rowCount === 1;
}

export async function deviceLoginByCode(pool: PgPool, deviceCodeHash: string) {
  const { rows } = await pool.query<DeviceLoginRow>(
    `SELECT ${columns} FROM device_logins WHERE device_code_hash = $1`,
    [deviceCodeHash],
  );
  return rows[0] && fromRow(rows[0]);
}

export async function deviceLoginByUserCode(pool: PgPool, userCode: string) {
  const { rows } = await pool.query<DeviceLoginRow>(
    `SELECT ${columns} FROM device_logins WHERE user_code = $1`,
    [userCode],
  );
  return rows[0] && fromRow(rows[0]);
}

/** Records a poll (and a slowed-down interval); the next poll is judged from it. */
export async function recordPoll(pool: PgPool, deviceCodeHash: string, now: Date, intervalSeconds: number) {
  await pool.query(
    'UPDATE device_logins SET last_polled_at = $2, interval_seconds = $3 WHERE device_code_hash = $1',
    [deviceCodeHash, now, intervalSeconds],
  );
}

/** A person's decision on a pending, unexpired login; false when it was no longer pending. */
export async function decideDeviceLogin(
  pool: PgPool,
  userCode: string,
  decision: { status: 'approved'; orgId: string; personId: string } | { status: 'denied'; personId: string },
  now: Date,
): Promise<boolean> {
  const orgId = decision.status === 'approved' ? decision.orgId : null;
  const { rowCount } = await pool.query(
    `UPDATE device_logins SET status = $2, org_id = $3, person_id = $4
     WHERE user_code = $1 AND status = 'pending' AND expires_at > $5`,
    [userCode, decision.status, orgId, decision.personId, now],
  );
  return rowCount === 1;
}

/** Claims an approved login for collection, once; false when another poll got it first. */
export async function markCollected(pool: PgPool, deviceCodeHash: string, keyId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE device_logins SET status = 'collected', key_id = $2
     WHERE device_code_hash = $1 AND status = 'approved'`,
    [deviceCodeHash, keyId],
  );
  return rowCount === 1;
}

/** Gives a claimed login back when its key could not be published, so the next poll tries again. */
export async function unmarkCollected(pool: PgPool, deviceCodeHash: string): Promise<void> {
  await pool.query(
    `UPDATE device_logins SET status = 'approved', key_id = NULL
     WHERE device_code_hash = $1 AND status = 'collected'`,
    [deviceCodeHash],
  );
}

/** Retention: logins a day past their expiry. */
export async function deleteExpiredDeviceLogins(pool: PgPool, now: Date): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM device_logins WHERE expires_at <= $1', [
    new Date(now.getTime() - 24 * 60 * 60 * 1000),
  ]);
  return rowCount ?? 0;
}
