-- Up Migration

-- Attempts counted against a limit (the login limits, @fastify/rate-limit; stores/rate-limits.ts),
-- one row per limit and subject ("login-account:ada@example.com"). They live here, not in each
-- API process's memory, so that every replica behind the load balancer counts against the same
-- window and a restart forgets nothing. One statement counts an attempt, restarting the window
-- once it has ended, on the database's clock. Rows whose window has ended are deleted by
-- jobs/retention.ts; no index on window_ends_at, since by then nearly every row has ended and a
-- scan finds them at once, while an index would be written on every new window.
CREATE TABLE rate_limits (
  -- The limit's name, then whom it counts: an address, an account.
  key text PRIMARY KEY,
  -- Attempts in the current window, the one being made included.
  count integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE rate_limits;
