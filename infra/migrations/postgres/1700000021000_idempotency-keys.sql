-- Up Migration

-- Idempotency keys are one rule for every request that takes one (domain/idempotency.ts): the
-- titles' and previews' table now also keeps the placing of a run (issue 50), its request id
-- being the run's id. The same rows and columns under the name of what they are; the retention
-- job deletes them past their 24 hours as before.
ALTER TABLE inference_idempotency RENAME TO idempotency_keys;
ALTER INDEX inference_idempotency_created RENAME TO idempotency_keys_created;
ALTER INDEX inference_idempotency_pkey RENAME TO idempotency_keys_pkey;

-- Down Migration
ALTER INDEX idempotency_keys_pkey RENAME TO inference_idempotency_pkey;
ALTER INDEX idempotency_keys_created RENAME TO inference_idempotency_created;
ALTER TABLE idempotency_keys RENAME TO inference_idempotency;
