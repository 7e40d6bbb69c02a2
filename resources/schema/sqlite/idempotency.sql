-- Idempotency records: the seeds' DDL (DESIGN.md §1) for SQLite.
-- status: 0 = PROCESSING, 1 = SUCCESS, 2 = FAILED. Times are TEXT 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (UTC):
-- that exact format sorts and compares as text. SQLite ignores VARCHAR(n): CHECK keeps the limits.
CREATE TABLE IF NOT EXISTS idempotency_record (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  idem_key        VARCHAR(64) NOT NULL UNIQUE CHECK (length(idem_key) <= 64),
  biz_type        VARCHAR(32) NOT NULL CHECK (length(biz_type) <= 32),
  status          TINYINT NOT NULL DEFAULT 0,
  result_snapshot TEXT,
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  expire_at       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_idempotency_record_status_updated
  ON idempotency_record (status, updated_at, id);
CREATE INDEX IF NOT EXISTS idx_idempotency_record_biz_status_updated
  ON idempotency_record (biz_type, status, updated_at, id);
-- The incident window (DESIGN.md §7): record.created and record.updated events by time.
CREATE INDEX IF NOT EXISTS idx_idempotency_record_created ON idempotency_record (created_at, id);
CREATE INDEX IF NOT EXISTS idx_idempotency_record_updated ON idempotency_record (updated_at, id);
