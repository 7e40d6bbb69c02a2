-- Console-owned reconciliation tables (DESIGN.md §8), in the idempotency database beside
-- triage_audit, so that a change and its audit row commit in one transaction. Console schema
-- version 4.
--
-- triage_escalation: what reconciliation hands to humans. reason is one of the 11 reason
-- codes; facts a JSON object (text); amount decimal text as read (NULL: unknown). At most one
-- OPEN row per (idem_key, reason): open_slot is 1 while open and NULL once resolved, and NULLs
-- are distinct in a UNIQUE constraint, so resolved rows never collide. Times from the
-- server's clock; first_escalated_at and sla_due_at never change while the row is open.
CREATE TABLE IF NOT EXISTS triage_escalation (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  idem_key            VARCHAR(255) NOT NULL CHECK (length(idem_key) <= 255),
  biz_type            VARCHAR(64) NOT NULL DEFAULT '' CHECK (length(biz_type) <= 64),
  tenant              VARCHAR(128) NOT NULL DEFAULT '' CHECK (length(tenant) <= 128),
  reason              VARCHAR(32) NOT NULL CHECK (reason IN ('CONTRADICTION', 'AGENT_SAW_SUCCESS', 'DUPLICATE', 'KEY_REUSE',
                        'UPSTREAM_UNUSABLE', 'NO_QUERY_API', 'AMOUNT_MISMATCH', 'EXPIRING', 'STUCK_COMPENSATION', 'POLICY',
                        'EXTERNAL')),
  facts               TEXT NOT NULL,
  amount              VARCHAR(64) CHECK (amount IS NULL OR length(amount) <= 64),
  currency            VARCHAR(8) NOT NULL DEFAULT '' CHECK (length(currency) <= 8),
  source_ref          VARCHAR(128) NOT NULL DEFAULT '' CHECK (length(source_ref) <= 128),
  first_escalated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  last_seen_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  run_id              BIGINT NOT NULL DEFAULT 0,
  sla_due_at          TEXT,
  resolution          VARCHAR(1000) CHECK (resolution IS NULL OR length(resolution) <= 1000),
  resolved_at         TEXT,
  resolved_by         VARCHAR(64) CHECK (resolved_by IS NULL OR length(resolved_by) <= 64),
  version             BIGINT NOT NULL DEFAULT 1,
  open_slot           SMALLINT CHECK (open_slot = 1),
  CHECK ((open_slot IS NULL) = (resolved_at IS NOT NULL)),
  UNIQUE (idem_key, reason, open_slot)
);
CREATE INDEX IF NOT EXISTS idx_triage_escalation_open ON triage_escalation (open_slot, first_escalated_at);
CREATE INDEX IF NOT EXISTS idx_triage_escalation_key ON triage_escalation (idem_key);
-- triage_claim: a lease with expiry on one subject ("key": an idempotency key, "escalation":
-- an escalation id as text, "reconcile": the reconciler's run lease), taken and released by
-- compare-and-set on version, so two holders never hold it at once.
CREATE TABLE IF NOT EXISTS triage_claim (
  scope       VARCHAR(16) NOT NULL CHECK (scope IN ('key', 'escalation', 'reconcile')),
  subject     VARCHAR(255) NOT NULL CHECK (length(subject) <= 255),
  holder      VARCHAR(128) NOT NULL CHECK (length(holder) <= 128),
  claimed_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  expires_at  TEXT NOT NULL,
  reason      VARCHAR(1000) NOT NULL DEFAULT '' CHECK (length(reason) <= 1000),
  version     BIGINT NOT NULL DEFAULT 1,
  PRIMARY KEY (scope, subject)
);
CREATE INDEX IF NOT EXISTS idx_triage_claim_expires ON triage_claim (expires_at);
-- triage_reconcile_run: one row per reconcile run (DESIGN.md §8 "Reconcile"). state running,
-- finished, failed or stopped; finished_at NULL while running (or when the run was killed);
-- filters and counts are JSON text.
CREATE TABLE IF NOT EXISTS triage_reconcile_run (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  holder        VARCHAR(128) NOT NULL CHECK (length(holder) <= 128),
  started_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  heartbeat_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  finished_at   TEXT,
  state         VARCHAR(16) NOT NULL CHECK (state IN ('running', 'finished', 'failed', 'stopped')),
  dry_run       SMALLINT NOT NULL CHECK (dry_run IN (0, 1)),
  filters       TEXT NOT NULL,
  counts        TEXT NOT NULL DEFAULT '{}',
  error         VARCHAR(1000) CHECK (error IS NULL OR length(error) <= 1000)
);
CREATE INDEX IF NOT EXISTS idx_triage_reconcile_run_state ON triage_reconcile_run (state, finished_at);
CREATE INDEX IF NOT EXISTS idx_triage_reconcile_run_started ON triage_reconcile_run (started_at, id);
