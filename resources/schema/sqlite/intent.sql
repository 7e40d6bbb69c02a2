-- The agents' intent log (DESIGN.md §1, §4): one row per attempt. The console only reads it.
CREATE TABLE IF NOT EXISTS intent_log (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id      VARCHAR(64) CHECK (task_id IS NULL OR length(task_id) <= 64),
  step_id      VARCHAR(64) CHECK (step_id IS NULL OR length(step_id) <= 64),
  action       VARCHAR(64) CHECK (action IS NULL OR length(action) <= 64),
  idem_key     VARCHAR(64) CHECK (idem_key IS NULL OR length(idem_key) <= 64),
  status       VARCHAR(24) CHECK (status IS NULL OR length(status) <= 24),
  request      TEXT,
  response     TEXT,
  error        TEXT,
  state_before TEXT,
  state_after  TEXT,
  actor        VARCHAR(64) CHECK (actor IS NULL OR length(actor) <= 64),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')
);
CREATE INDEX IF NOT EXISTS idx_intent_log_key_created ON intent_log (idem_key, created_at, id);
CREATE INDEX IF NOT EXISTS idx_intent_log_status_updated ON intent_log (status, updated_at, id);
CREATE INDEX IF NOT EXISTS idx_intent_log_task_step ON intent_log (task_id, step_id);
-- The incident window (DESIGN.md §7): intent attempts by time.
CREATE INDEX IF NOT EXISTS idx_intent_log_created ON intent_log (created_at, id);
