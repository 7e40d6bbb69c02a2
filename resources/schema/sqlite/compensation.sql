-- Console-owned compensations (DESIGN.md §1 "Compensation is a side effect too", §4), in the
-- intent-log database. One row per compensation, keyed by its deterministic key; the intent
-- is written before the first HTTP call. status: INTENT, SUCCEEDED, FAILED, UNKNOWN.
CREATE TABLE IF NOT EXISTS triage_compensation (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  comp_key    VARCHAR(64) NOT NULL CHECK (length(comp_key) <= 64),
  source_key  VARCHAR(64) NOT NULL CHECK (length(source_key) <= 64),
  biz_type    VARCHAR(32) CHECK (biz_type IS NULL OR length(biz_type) <= 32),
  action      VARCHAR(64) NOT NULL CHECK (length(action) <= 64),
  target      VARCHAR(64) NOT NULL CHECK (length(target) <= 64),
  request     TEXT NOT NULL,
  status      VARCHAR(16) NOT NULL CHECK (status IN ('INTENT', 'SUCCEEDED', 'FAILED', 'UNKNOWN')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  operator    VARCHAR(64) NOT NULL CHECK (length(operator) <= 64),
  reason      VARCHAR(1000) NOT NULL CHECK (length(reason) <= 1000),
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  last_error  TEXT,
  response    TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS uq_triage_compensation_key ON triage_compensation (comp_key);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_source ON triage_compensation (source_key, created_at, id);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_status ON triage_compensation (status, updated_at, id);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_created ON triage_compensation (created_at, id);
-- Every attempt of a compensation: the call (kind send) or the confirmation query (confirm).
CREATE TABLE IF NOT EXISTS triage_compensation_attempt (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  comp_key         VARCHAR(64) NOT NULL CHECK (length(comp_key) <= 64),
  kind             VARCHAR(16) NOT NULL,
  at               TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  http_status      INTEGER,
  classification   VARCHAR(24) NOT NULL,
  response_preview TEXT,
  error            TEXT
);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_attempt_key ON triage_compensation_attempt (comp_key, id);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_attempt_at ON triage_compensation_attempt (at, id);
