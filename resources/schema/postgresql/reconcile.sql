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
  id                  BIGSERIAL PRIMARY KEY,
  idem_key            VARCHAR(255) NOT NULL,
  biz_type            VARCHAR(64) NOT NULL DEFAULT '',
  tenant              VARCHAR(128) NOT NULL DEFAULT '',
  reason              VARCHAR(32) NOT NULL CHECK (reason IN ('CONTRADICTION', 'AGENT_SAW_SUCCESS', 'DUPLICATE', 'KEY_REUSE',
                        'UPSTREAM_UNUSABLE', 'NO_QUERY_API', 'AMOUNT_MISMATCH', 'EXPIRING', 'STUCK_COMPENSATION', 'POLICY',
                        'EXTERNAL')),
  facts               TEXT NOT NULL,
  amount              VARCHAR(64),
  currency            VARCHAR(8) NOT NULL DEFAULT '',
  source_ref          VARCHAR(128) NOT NULL DEFAULT '',
  first_escalated_at  TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  last_seen_at        TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  run_id              BIGINT NOT NULL DEFAULT 0,
  sla_due_at          TIMESTAMPTZ(6),
  resolution          VARCHAR(1000),
  resolved_at         TIMESTAMPTZ(6),
  resolved_by         VARCHAR(64),
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
  subject     VARCHAR(255) NOT NULL,
  holder      VARCHAR(128) NOT NULL,
  claimed_at  TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  expires_at  TIMESTAMPTZ(6) NOT NULL,
  reason      VARCHAR(1000) NOT NULL DEFAULT '',
  version     BIGINT NOT NULL DEFAULT 1,
  PRIMARY KEY (scope, subject)
);
CREATE INDEX IF NOT EXISTS idx_triage_claim_expires ON triage_claim (expires_at);
-- triage_reconcile_run: one row per reconcile run (DESIGN.md §8 "Reconcile"). state running,
-- finished, failed or stopped; finished_at NULL while running (or when the run was killed);
-- filters and counts are JSON text.
CREATE TABLE IF NOT EXISTS triage_reconcile_run (
  id            BIGSERIAL PRIMARY KEY,
  holder        VARCHAR(128) NOT NULL,
  started_at    TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  heartbeat_at  TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  finished_at   TIMESTAMPTZ(6),
  state         VARCHAR(16) NOT NULL CHECK (state IN ('running', 'finished', 'failed', 'stopped')),
  dry_run       SMALLINT NOT NULL CHECK (dry_run IN (0, 1)),
  filters       TEXT NOT NULL,
  counts        TEXT NOT NULL DEFAULT '{}',
  error         VARCHAR(1000)
);
CREATE INDEX IF NOT EXISTS idx_triage_reconcile_run_state ON triage_reconcile_run (state, finished_at);
CREATE INDEX IF NOT EXISTS idx_triage_reconcile_run_started ON triage_reconcile_run (started_at, id);
