-- Up Migration

-- Each admission group's fate (issue 49, item 1): a group of OTLP requests is published to Kafka
-- and recorded in the ingest ledger in one transaction committed only once Kafka acknowledged it,
-- and that transaction inserts the group's row, kept. A group whose transaction never committed
-- (Kafka refused or stalled, Postgres failed, the lease was lost) was answered 503; its row says
-- dropped, written by the API after the failure or, failing that, by the spans' consumer once it
-- has waited for the group longer than the API's commit can take. The consumer projects a
-- group's spans only when its row says kept, so spans Kafka holds for a 503 never reach the read
-- models. The primary key decides between the API's commit and a consumer's drop: whichever
-- inserts first wins, and the other fails (the API answers 503) or finds it (the consumer applies).
-- Kept as long as the spans topic keeps events (31 days), so a replay finds every group's fate.
CREATE TABLE admission_groups (
  group_id uuid PRIMARY KEY,
  kept boolean NOT NULL,
  decided_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admission_groups_decided_at ON admission_groups (decided_at);

-- Down Migration
DROP TABLE admission_groups;
