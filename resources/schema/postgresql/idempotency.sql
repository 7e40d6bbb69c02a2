-- Idempotency records: the seeds' DDL (DESIGN.md §1) in PostgreSQL types.
-- status: 0 = PROCESSING, 1 = SUCCESS, 2 = FAILED. Times are timestamptz (UTC, microseconds).
-- Statements are separated by a line that ends with ';'. A statement preceded by a
-- line '-- @tag' is run only when that tag is enabled (see backends/Schema.cpp).
CREATE TABLE IF NOT EXISTS idempotency_record (
  id              BIGSERIAL PRIMARY KEY,
  idem_key        VARCHAR(64) NOT NULL UNIQUE,
  biz_type        VARCHAR(32) NOT NULL,
  status          SMALLINT NOT NULL DEFAULT 0,
  result_snapshot TEXT,
  created_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  expire_at       TIMESTAMPTZ(6) NOT NULL
);
-- Unknown / In flight / Failed / Succeeded queues: status filter, keyset on (updated_at, id).
CREATE INDEX IF NOT EXISTS idx_idempotency_record_status_updated
  ON idempotency_record (status, updated_at, id);
-- The same with a biz_type filter.
CREATE INDEX IF NOT EXISTS idx_idempotency_record_biz_status_updated
  ON idempotency_record (biz_type, status, updated_at, id);
-- The incident window (DESIGN.md §7): record.created and record.updated events by time.
CREATE INDEX IF NOT EXISTS idx_idempotency_record_created ON idempotency_record (created_at, id);
CREATE INDEX IF NOT EXISTS idx_idempotency_record_updated ON idempotency_record (updated_at, id);
-- Tenant filter: an index-friendly key prefix (LIKE 'ticket:create:acme:%').
CREATE INDEX IF NOT EXISTS idx_idempotency_record_key_prefix
  ON idempotency_record (idem_key text_pattern_ops);
