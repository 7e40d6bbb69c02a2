-- Console-owned tables of the daily review (DESIGN.md §8 "The daily review"), in the
-- idempotency database beside triage_escalation and triage_audit. Console schema version 5.
-- Times from the server's clock.
--
-- triage_review_breach: an SLA breach recorded ONCE (INSERT … ON CONFLICT DO NOTHING /
-- INSERT IGNORE, never updated): due_at is the escalation's sla_due_at, noticed_at the
-- server's time when first noticed, noticed_by who noticed ("console", "reconciler", "report").
-- Kept when the escalation row is purged.
CREATE TABLE IF NOT EXISTS triage_review_breach (
  escalation_id  BIGINT NOT NULL PRIMARY KEY,
  idem_key       VARCHAR(255) NOT NULL,
  biz_type       VARCHAR(64) NOT NULL DEFAULT '',
  reason         VARCHAR(32) NOT NULL,
  due_at         TIMESTAMPTZ(6) NOT NULL,
  noticed_at     TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  noticed_by     VARCHAR(64) NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_triage_review_breach_due ON triage_review_breach (due_at);
-- triage_review_signoff: one sign-off per (day, zone): the day 'YYYY-MM-DD' in the IANA zone,
-- its window [window_from, window_to) in UTC, who signed when, the counts and open-by-bucket
-- JSON objects as signed, and the SHA-256 (hex) of the report the reviewer saw.
CREATE TABLE IF NOT EXISTS triage_review_signoff (
  id              BIGSERIAL PRIMARY KEY,
  day             VARCHAR(10) NOT NULL,
  zone            VARCHAR(64) NOT NULL,
  window_from     TIMESTAMPTZ(6) NOT NULL,
  window_to       TIMESTAMPTZ(6) NOT NULL,
  signed_by       VARCHAR(64) NOT NULL,
  signed_at       TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  counts          TEXT NOT NULL,
  open_by_bucket  TEXT NOT NULL,
  report_sha256   VARCHAR(64) NOT NULL,
  note            VARCHAR(1000) NOT NULL DEFAULT '',
  UNIQUE (day, zone)
);
-- triage_review_daily: the trend rows, one per (day, zone, biz_type, reason), that survive
-- purges of escalations and records. complete = 1: the day had ended when written; such rows
-- are written once and never rewritten. complete = 0: the current day's, replaced by each
-- writer (reconcile runs, the review). median_resolve_s NULL: nothing resolved that day.
CREATE TABLE IF NOT EXISTS triage_review_daily (
  day               VARCHAR(10) NOT NULL,
  zone              VARCHAR(64) NOT NULL,
  biz_type          VARCHAR(64) NOT NULL,
  reason            VARCHAR(32) NOT NULL,
  opened            INTEGER NOT NULL DEFAULT 0,
  resolved          INTEGER NOT NULL DEFAULT 0,
  open_end          INTEGER NOT NULL DEFAULT 0,
  breaches          INTEGER NOT NULL DEFAULT 0,
  median_resolve_s  DOUBLE PRECISION,
  complete          SMALLINT NOT NULL CHECK (complete IN (0, 1)),
  written_at        TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  written_by        VARCHAR(64) NOT NULL,
  PRIMARY KEY (day, zone, biz_type, reason)
);
-- triage_review_note: "mark reviewed" (kind 'reviewed') and notes (kind 'note') on an
-- escalation, each also audited (review.reviewed / review.note).
CREATE TABLE IF NOT EXISTS triage_review_note (
  id             BIGSERIAL PRIMARY KEY,
  escalation_id  BIGINT NOT NULL,
  kind           VARCHAR(16) NOT NULL CHECK (kind IN ('reviewed', 'note')),
  note_text      VARCHAR(1000) NOT NULL DEFAULT '',
  noted_by       VARCHAR(64) NOT NULL,
  noted_at       TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX IF NOT EXISTS idx_triage_review_note_escalation ON triage_review_note (escalation_id, noted_at);
