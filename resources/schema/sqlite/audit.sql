-- Console-owned audit trail (DESIGN.md §2, §4), in the idempotency database. One row per
-- operator action and outcome; written in the same transaction as the change it records.
CREATE TABLE IF NOT EXISTS triage_audit (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id  VARCHAR(40) NOT NULL CHECK (length(request_id) <= 40),
  at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  operator    VARCHAR(64) NOT NULL CHECK (length(operator) <= 64),
  db_user     VARCHAR(64) CHECK (db_user IS NULL OR length(db_user) <= 64),
  host        VARCHAR(255) CHECK (host IS NULL OR length(host) <= 255),
  action      VARCHAR(32) NOT NULL CHECK (length(action) <= 32),
  idem_key    VARCHAR(64) NOT NULL CHECK (length(idem_key) <= 64),
  from_state  TEXT,
  to_state    TEXT,
  reason      VARCHAR(1000) NOT NULL CHECK (length(reason) <= 1000),
  evidence    TEXT,
  outcome     VARCHAR(16) NOT NULL CHECK (outcome IN ('applied', 'conflict', 'refused', 'error', 'recorded')),
  detail      TEXT
);
CREATE INDEX IF NOT EXISTS idx_triage_audit_key_at ON triage_audit (idem_key, at, id);
CREATE INDEX IF NOT EXISTS idx_triage_audit_at ON triage_audit (at, id);
CREATE INDEX IF NOT EXISTS idx_triage_audit_request ON triage_audit (request_id);
