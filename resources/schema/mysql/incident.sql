-- Console-owned incidents (DESIGN.md §7 "Incidents"), in the idempotency database beside
-- triage_audit, so that every change and its audit row commit in one transaction. An incident
-- names a window [window_from, window_to) (UTC) and the window's filters as JSON text
-- ({"biz_type","tenant","key","stores","kinds","statuses"}); status open or closed, changed by
-- compare-and-set on version. Pins name one event (kind, store, row id as text, its time);
-- notes are an operator's text, optionally about one event. Console schema version 2.
CREATE TABLE IF NOT EXISTS triage_incident (
  id           BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title        VARCHAR(200) NOT NULL,
  window_from  DATETIME(6) NOT NULL,
  window_to    DATETIME(6) NOT NULL,
  filters      TEXT NOT NULL,
  status       VARCHAR(8) NOT NULL CHECK (status IN ('open', 'closed')),
  created_by   VARCHAR(64) NOT NULL,
  created_at   DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  closed_by    VARCHAR(64),
  closed_at    DATETIME(6),
  version      BIGINT NOT NULL DEFAULT 1,
  CHECK (window_from < window_to)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX IF NOT EXISTS idx_triage_incident_status ON triage_incident (status, id);
CREATE TABLE IF NOT EXISTS triage_incident_pin (
  id           BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  incident_id  BIGINT NOT NULL REFERENCES triage_incident (id),
  event_kind   VARCHAR(32) NOT NULL,
  event_store  VARCHAR(16) NOT NULL,
  event_id     VARCHAR(128) NOT NULL,
  event_at     DATETIME(6) NOT NULL,
  note         VARCHAR(1000),
  pinned_by    VARCHAR(64) NOT NULL,
  pinned_at    DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  UNIQUE (incident_id, event_kind, event_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE IF NOT EXISTS triage_incident_note (
  id           BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  incident_id  BIGINT NOT NULL REFERENCES triage_incident (id),
  operator     VARCHAR(64) NOT NULL,
  at           DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  body         VARCHAR(4000) NOT NULL,
  event_kind   VARCHAR(32),
  event_id     VARCHAR(128)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX IF NOT EXISTS idx_triage_incident_note_incident ON triage_incident_note (incident_id, id);
-- Recorded bundle exports (DESIGN.md §7 "Bundles"): the SHA-256 of each exported bundle's
-- canonical event list, who exported it and when, so a bundle can be checked against the
-- database later; incident_id NULL for a window exported without an incident. redacted 1 or
-- 0 (0: --no-redact). Console schema version 3.
CREATE TABLE IF NOT EXISTS triage_incident_export (
  id             BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  incident_id    BIGINT REFERENCES triage_incident (id),
  events_sha256  CHAR(64) NOT NULL,
  event_count    BIGINT NOT NULL,
  exported_by    VARCHAR(64) NOT NULL,
  exported_at    DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  redacted       SMALLINT NOT NULL CHECK (redacted IN (0, 1))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX IF NOT EXISTS idx_triage_incident_export_sha ON triage_incident_export (events_sha256, id);
