-- Business table (DESIGN.md §4). UNIQUE(idem_key) is the backstop; the console must also
-- work where it is missing (that is how duplicate-key groups happen).
CREATE TABLE IF NOT EXISTS ticket (
  id         BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  idem_key   VARCHAR(64) NULL,
  tenant_id  VARCHAR(64),
  title      VARCHAR(255),
  status     VARCHAR(16),
  payload    LONGTEXT,
  created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
-- @backstop
CREATE UNIQUE INDEX IF NOT EXISTS uq_ticket_idem_key ON ticket (idem_key);
-- @no-backstop
CREATE INDEX IF NOT EXISTS idx_ticket_idem_key ON ticket (idem_key);
CREATE INDEX IF NOT EXISTS idx_ticket_created ON ticket (created_at, id);
