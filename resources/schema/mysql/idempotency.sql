-- Idempotency records: the seeds' DDL (DESIGN.md §1) in MySQL/MariaDB types (LONGTEXT: plain TEXT stops at 64 KB).
-- status: 0 = PROCESSING, 1 = SUCCESS, 2 = FAILED. Times are DATETIME(6) written in UTC (session time_zone +00:00).
-- Statements are separated by a line that ends with ';'. A statement preceded by a
-- line '-- @tag' is run only when that tag is enabled (see backends/Schema.cpp).
CREATE TABLE IF NOT EXISTS idempotency_record (
  id              BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  idem_key        VARCHAR(64) NOT NULL UNIQUE,
  biz_type        VARCHAR(32) NOT NULL,
  status          TINYINT NOT NULL DEFAULT 0,
  result_snapshot LONGTEXT,
  created_at      DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at      DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  expire_at       DATETIME(6) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
-- Unknown / In flight / Failed / Succeeded queues: status filter, keyset on (updated_at, id).
CREATE INDEX IF NOT EXISTS idx_idempotency_record_status_updated
  ON idempotency_record (status, updated_at, id);
-- The same with a biz_type filter.
CREATE INDEX IF NOT EXISTS idx_idempotency_record_biz_status_updated
  ON idempotency_record (biz_type, status, updated_at, id);
-- The incident window (DESIGN.md §7): record.created and record.updated events by time.
CREATE INDEX IF NOT EXISTS idx_idempotency_record_created ON idempotency_record (created_at, id);
CREATE INDEX IF NOT EXISTS idx_idempotency_record_updated ON idempotency_record (updated_at, id);
-- Tenant filter (LIKE 'ticket:create:acme:%') uses the UNIQUE index on idem_key.
