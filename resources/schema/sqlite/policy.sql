-- The safety policy (DESIGN.md §8 "Safety policy"), in the idempotency database beside
-- triage_audit. Console schema version 6. Times from the server's clock.
--
-- triage_policy: one row per setting, named as in the INI ("biz.payment.money_moving"), plus
-- the global freeze ("frozen": value true/false). Written only by triagectl policy set /
-- freeze / unfreeze, each with an audit row (policy.set, policy.freeze, policy.unfreeze) in the
-- same transaction. set_by / set_at / reason: who changed it last, when and why;
-- schema_version: the console schema version of the build that wrote the row; version: the
-- row's compare-and-set counter (1 on insert, +1 on every change).
CREATE TABLE IF NOT EXISTS triage_policy (
  name            VARCHAR(128) NOT NULL PRIMARY KEY,
  value           VARCHAR(255) NOT NULL,
  set_by          VARCHAR(64) NOT NULL,
  set_at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
  reason          VARCHAR(2000) NOT NULL,
  schema_version  INTEGER NOT NULL,
  version         BIGINT NOT NULL DEFAULT 1
);
