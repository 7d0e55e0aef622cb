-- The spans projection writes each trace's fragment itself, from the span event it projects
-- (projections/trace-fragments-rowbinary.ts), with the values this view gave. The view's GROUP BY
-- and its five concatenated precedence keys per span were more than half of ClickHouse's CPU per
-- insert into `spans`: inserting 400,000 spans took 790-820 ms of its CPU without the view and
-- 1,700-2,630 ms with it, against 170-210 ms for the 100,000 fragments written directly.
-- A fragment is now a trace's spans in one event rather than in one insert: a trace may have more
-- fragments, and reads, which take a trace as the union of its fragments, answer the same. Those
-- the view wrote before stay as they are.
DROP TABLE IF EXISTS trace_fragments_from_spans
