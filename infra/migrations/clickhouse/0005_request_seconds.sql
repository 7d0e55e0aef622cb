-- Time on hardware (issue 16): a run's metered stretches are usage events of the endpoint `runs`
-- under a meter name (`run:small`…) in `model`, with the seconds they cover here; 0 for a title
-- or preview. Reconciliation sums them per org, meter and UTC day beside the tokens.
ALTER TABLE requests ADD COLUMN seconds UInt64 DEFAULT 0
