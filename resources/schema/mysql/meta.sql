-- Console-owned facts about the console's own schema (DESIGN.md §10 "Schema version"), in the
-- idempotency database and in the intent-log database (where triage_compensation lives).
-- meta_key 'schema_version': the console schema version init-schema last brought the
-- database to (a decimal integer). A console that knows an older version refuses to write.
CREATE TABLE IF NOT EXISTS triage_meta (
  meta_key    VARCHAR(64) NOT NULL PRIMARY KEY,
  meta_value  VARCHAR(255) NOT NULL,
  updated_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
