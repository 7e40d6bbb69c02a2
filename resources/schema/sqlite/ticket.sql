-- Business table (DESIGN.md §4). UNIQUE(idem_key) is the backstop; the demo workspace omits it
-- on purpose, to show duplicate-key groups.
CREATE TABLE IF NOT EXISTS ticket (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  idem_key   VARCHAR(64) NULL CHECK (idem_key IS NULL OR length(idem_key) <= 64),
  tenant_id  VARCHAR(64) CHECK (tenant_id IS NULL OR length(tenant_id) <= 64),
  title      VARCHAR(255) CHECK (title IS NULL OR length(title) <= 255),
  status     VARCHAR(16) CHECK (status IS NULL OR length(status) <= 16),
  payload    TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')
);
-- @backstop
CREATE UNIQUE INDEX IF NOT EXISTS uq_ticket_idem_key ON ticket (idem_key);
-- @no-backstop
CREATE INDEX IF NOT EXISTS idx_ticket_idem_key ON ticket (idem_key);
CREATE INDEX IF NOT EXISTS idx_ticket_created ON ticket (created_at, id);
