-- The agents' intent log (DESIGN.md §1, §4): one row per attempt. The console only reads it.
CREATE TABLE IF NOT EXISTS intent_log (
  id           BIGSERIAL PRIMARY KEY,
  task_id      VARCHAR(64),
  step_id      VARCHAR(64),
  action       VARCHAR(64),
  idem_key     VARCHAR(64),
  status       VARCHAR(24),
  request      TEXT,
  response     TEXT,
  error        TEXT,
  state_before TEXT,
  state_after  TEXT,
  actor        VARCHAR(64),
  created_at   TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at   TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
-- Attempts of one key in time order; "latest attempt of the key" lookups.
CREATE INDEX IF NOT EXISTS idx_intent_log_key_created ON intent_log (idem_key, created_at, id);
-- Unknown / Escalated queues: status filter, keyset on (updated_at, id).
CREATE INDEX IF NOT EXISTS idx_intent_log_status_updated ON intent_log (status, updated_at, id);
CREATE INDEX IF NOT EXISTS idx_intent_log_task_step ON intent_log (task_id, step_id);
-- The incident window (DESIGN.md §7): intent attempts by time.
CREATE INDEX IF NOT EXISTS idx_intent_log_created ON intent_log (created_at, id);
