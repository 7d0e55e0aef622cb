-- Who sent a request (issue 50, item 4): the person whose dashboard session sent it (the
-- Playground), beside `key_id`, which is '' for such a request. '' for a key's request, a run's
-- stretch and every row from before.
ALTER TABLE requests ADD COLUMN person_id String DEFAULT ''
