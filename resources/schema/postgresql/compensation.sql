-- Console-owned compensations (DESIGN.md §1 "Compensation is a side effect too", §4), in the
-- intent-log database. One row per compensation, keyed by its deterministic key; the intent
-- is written before the first HTTP call. status: INTENT, SUCCEEDED, FAILED, UNKNOWN.
CREATE TABLE IF NOT EXISTS triage_compensation (
  id          BIGSERIAL PRIMARY KEY,
  comp_key    VARCHAR(64) NOT NULL,
  source_key  VARCHAR(64) NOT NULL,
  biz_type    VARCHAR(32),
  action      VARCHAR(64) NOT NULL,
  target      VARCHAR(64) NOT NULL,
  request     TEXT NOT NULL,
  status      VARCHAR(16) NOT NULL CHECK (status IN ('INTENT', 'SUCCEEDED', 'FAILED', 'UNKNOWN')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  operator    VARCHAR(64) NOT NULL,
  reason      VARCHAR(1000) NOT NULL,
  created_at  TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  updated_at  TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  last_error  TEXT,
  response    TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS uq_triage_compensation_key ON triage_compensation (comp_key);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_source ON triage_compensation (source_key, created_at, id);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_status ON triage_compensation (status, updated_at, id);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_created ON triage_compensation (created_at, id);
-- Every attempt of a compensation: the call (kind send) or the confirmation query (confirm).
CREATE TABLE IF NOT EXISTS triage_compensation_attempt (
  id               BIGSERIAL PRIMARY KEY,
  comp_key         VARCHAR(64) NOT NULL,
  kind             VARCHAR(16) NOT NULL,
  at               TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  http_status      INTEGER,
  classification   VARCHAR(24) NOT NULL,
  response_preview TEXT,
  error            TEXT
);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_attempt_key ON triage_compensation_attempt (comp_key, id);
CREATE INDEX IF NOT EXISTS idx_triage_compensation_attempt_at ON triage_compensation_attempt (at, id);
