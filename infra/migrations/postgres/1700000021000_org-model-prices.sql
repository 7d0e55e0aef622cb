-- Up Migration

-- An org's own price for a model (issue 50, item 1), projected from orrery.org.v1 by
-- projections/org.ts: one per model whatever its case (`model_key`, the model in lower case),
-- `model` as last set. USD per million tokens, numeric: the number the API was given, exactly;
-- a kind left out (NULL) costs what input or output costs.
CREATE TABLE org_model_prices (
  org_id text NOT NULL REFERENCES orgs (org_id),
  model_key text NOT NULL,
  model text NOT NULL,
  input numeric NOT NULL,
  output numeric NOT NULL,
  cached_input numeric,
  reasoning numeric,
  set_at timestamptz NOT NULL,
  -- The person's id; '' for an operator.
  set_by text NOT NULL,
  PRIMARY KEY (org_id, model_key)
);

-- Down Migration
DROP TABLE org_model_prices;
