-- No read ever used a span's event id: a row's event is already known by its trace (the key its
-- partition is chosen by) and `received_offset`. Random text of 36 characters a span, it was a
-- tenth of the table's compressed bytes (47.6 of 427.6 MiB on the local stack's 6.1 million
-- spans), written by every insert and rewritten by every merge.
ALTER TABLE spans DROP COLUMN event_id
