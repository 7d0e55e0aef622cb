-- Up Migration

-- People, projected from orrery.person.v1 by projections/person.ts. The email is the login name,
-- normalized (domain/people/credentials.ts), one person per email.
CREATE TABLE people (
  person_id text PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text NOT NULL,
  -- An argon2id PHC string; the password itself is never stored.
  password_hash text NOT NULL,
  signed_up_at timestamptz NOT NULL
);

-- Not a read model: the API claims an email here (stores/people.ts) before it publishes
-- PersonSignedUp, so two sign-ups cannot publish the same email. A claim whose publish failed is
-- released by the claimant.
CREATE TABLE email_claims (
  email text PRIMARY KEY,
  person_id text NOT NULL,
  claimed_at timestamptz NOT NULL
);

-- Members and invitations, projected from orrery.org.v1 by projections/org.ts. A member's person
-- has no foreign key: the person stream is projected by another group, possibly later.
CREATE TABLE org_members (
  org_id text NOT NULL REFERENCES orgs (org_id),
  person_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'member')),
  added_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, person_id)
);
CREATE INDEX org_members_person ON org_members (person_id);

CREATE TABLE org_invitations (
  invitation_id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs (org_id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'member')),
  -- SHA-256 of the secret in the invitation link; the link itself is never stored.
  secret_hash text NOT NULL,
  -- The inviting person's id; '' for an operator.
  invited_by text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'accepted', 'revoked'))
);
CREATE INDEX org_invitations_org ON org_invitations (org_id);
CREATE INDEX org_invitations_email ON org_invitations (email);

-- The person who created a key; '' for an operator, and for every key created before people.
ALTER TABLE api_keys ADD COLUMN created_by text NOT NULL DEFAULT '';

-- Down Migration
ALTER TABLE api_keys DROP COLUMN created_by;
DROP TABLE org_invitations;
DROP TABLE org_members;
DROP TABLE email_claims;
DROP TABLE people;
