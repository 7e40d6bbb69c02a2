-- Business table (DESIGN.md §4). UNIQUE(idem_key) is the backstop; the console must also
-- work where it is missing (that is how duplicate-key groups happen).
CREATE TABLE IF NOT EXISTS ticket (
  id         BIGSERIAL PRIMARY KEY,
  idem_key   VARCHAR(64) NULL,
  tenant_id  VARCHAR(64),
  title      VARCHAR(255),
  status     VARCHAR(16),
  payload    TEXT,
  created_at TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
-- @backstop
CREATE UNIQUE INDEX IF NOT EXISTS uq_ticket_idem_key ON ticket (idem_key);
-- @no-backstop
CREATE INDEX IF NOT EXISTS idx_ticket_idem_key ON ticket (idem_key);
CREATE INDEX IF NOT EXISTS idx_ticket_created ON ticket (created_at, id);
