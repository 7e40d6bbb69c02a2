-- Four-eyes proposals (DESIGN.md §9 "Four-eyes"), in the idempotency database beside
-- triage_audit. Console schema version 7. Times from the server's clock.
--
-- triage_proposal: a manual mark that the safety policy (biz.<biz_type>.four_eyes) gives to a
-- second operator. action (mark_success | mark_failed), the key, the expected state (JSON, as the
-- compare-and-set will match it), the snapshot, the reason and the evidence exactly as proposed;
-- proposal_hash: SHA-256 (hex) over the canonical serialisation of those fields
-- (proposalHash()), so an edit of any of them voids the proposal. proposed_db_user /
-- decided_db_user: the server's own CURRENT_USER ('' on SQLite, which has no users).
-- state: open | approved (applied) | rejected | void (edited, or the record or its evidence
-- changed before approval); an open proposal past expires_at is expired.
-- proposed_by_key / decided_by_key: the operator name folded by the console (operatorKey():
-- NFKC, Unicode case folding, every kind of white space removed), so "alice", "ALICE",
-- "alice<TAB>", "Zoë" / "ZOË" are one person. override_rule: 1 when the proposer asked for
-- --override (the approval runs with it; part of the hash).
-- The CHECK refuses, for every client and raw SQL alike, an approval by the proposer's own
-- operator name (trimmed and lower-cased by the database, and by the folded keys); the
-- approving UPDATE also refuses the proposer's database user unless four_eyes_db_users =
-- shared (triage_policy).
CREATE TABLE IF NOT EXISTS triage_proposal (
  id                BIGSERIAL PRIMARY KEY,
  action            VARCHAR(32) NOT NULL,
  idem_key          VARCHAR(64) NOT NULL,
  biz_type          VARCHAR(64) NOT NULL,
  to_status         VARCHAR(16) NOT NULL,
  expected_state    VARCHAR(2000) NOT NULL,
  snapshot          TEXT NULL,
  snapshot_source   VARCHAR(255) NOT NULL,
  reason            VARCHAR(2000) NOT NULL,
  override_rule     INTEGER NOT NULL DEFAULT 0,
  evidence          TEXT NOT NULL,
  proposal_hash     CHAR(64) NOT NULL,
  proposed_by       VARCHAR(64) NOT NULL,
  proposed_by_key   VARCHAR(256) NOT NULL,
  proposed_db_user  VARCHAR(128) NOT NULL,
  proposed_at       TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
  expires_at        TIMESTAMPTZ(6) NOT NULL,
  state             VARCHAR(16) NOT NULL DEFAULT 'open',
  decided_by        VARCHAR(64) NULL,
  decided_by_key    VARCHAR(256) NULL,
  decided_db_user   VARCHAR(128) NULL,
  decided_at        TIMESTAMPTZ(6) NULL,
  decision_reason   VARCHAR(2000) NULL,
  version           BIGINT NOT NULL DEFAULT 1,
  CONSTRAINT triage_proposal_four_eyes
    CHECK (state <> 'approved' OR (LOWER(TRIM(COALESCE(decided_by, proposed_by))) <> LOWER(TRIM(proposed_by))
                                   AND COALESCE(decided_by_key, proposed_by_key) <> proposed_by_key))
);
CREATE INDEX IF NOT EXISTS idx_triage_proposal_state ON triage_proposal (state, id);
CREATE INDEX IF NOT EXISTS idx_triage_proposal_key ON triage_proposal (idem_key, id);
