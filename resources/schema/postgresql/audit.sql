-- Console-owned audit trail (DESIGN.md §2, §4), in the idempotency database. One row per
-- operator action and outcome; written in the same transaction as the change it records.
-- from_state / to_state / evidence are JSON text; outcome: applied, conflict, refused, error for
-- state changes, recorded for actions that change nothing (an upstream query).
CREATE TABLE IF NOT EXISTS triage_audit (
  id          BIGSERIAL PRIMARY KEY,
  request_id  VARCHAR(40) NOT NULL,
  at          TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  operator    VARCHAR(64) NOT NULL,
  db_user     VARCHAR(64),
  host        VARCHAR(255),
  action      VARCHAR(32) NOT NULL,
  idem_key    VARCHAR(64) NOT NULL,
  from_state  TEXT,
  to_state    TEXT,
  reason      VARCHAR(1000) NOT NULL,
  evidence    TEXT,
  outcome     VARCHAR(16) NOT NULL CHECK (outcome IN ('applied', 'conflict', 'refused', 'error', 'recorded')),
  detail      TEXT
);
CREATE INDEX IF NOT EXISTS idx_triage_audit_key_at ON triage_audit (idem_key, at, id);
CREATE INDEX IF NOT EXISTS idx_triage_audit_at ON triage_audit (at, id);
CREATE INDEX IF NOT EXISTS idx_triage_audit_request ON triage_audit (request_id);
