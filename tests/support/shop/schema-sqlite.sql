-- The "shop" shape on SQLite (see shop.ini).
CREATE TABLE IF NOT EXISTS idem_requests (
  req_id INTEGER PRIMARY KEY AUTOINCREMENT,
  request_key TEXT NOT NULL UNIQUE CHECK (length(request_key) <= 64),
  kind TEXT NOT NULL,
  tenant TEXT,
  state TEXT,
  response_body TEXT,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idem_requests_updated ON idem_requests (updated_ms, req_id);
CREATE INDEX IF NOT EXISTS idem_requests_tenant ON idem_requests (tenant, updated_ms);
CREATE TABLE IF NOT EXISTS agent_steps (
  step_pk INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT,
  step_name TEXT,
  op TEXT,
  request_key TEXT,
  step_state TEXT,
  req_json TEXT,
  resp_json TEXT,
  err_text TEXT,
  before_json TEXT,
  after_json TEXT,
  agent TEXT,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_steps_key ON agent_steps (request_key, created_ms, step_pk);
CREATE INDEX IF NOT EXISTS agent_steps_state ON agent_steps (step_state, updated_ms, step_pk);
CREATE TABLE IF NOT EXISTS orders (
  order_id TEXT PRIMARY KEY CHECK (length(order_id) = 36),
  request_key TEXT,
  tenant TEXT,
  summary TEXT,
  order_state TEXT,
  body TEXT,
  placed_ms INTEGER NOT NULL,
  changed_ms INTEGER
);
CREATE INDEX IF NOT EXISTS orders_key ON orders (request_key);
