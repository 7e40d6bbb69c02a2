-- The "shop" shape on PostgreSQL (see shop.ini). No unique index on orders.request_key:
-- the breached backstop that duplicate-key groups come from.
CREATE TABLE IF NOT EXISTS idem_requests (
  req_id BIGSERIAL PRIMARY KEY,
  request_key VARCHAR(64) NOT NULL UNIQUE,
  kind VARCHAR(32) NOT NULL,
  tenant VARCHAR(64),
  state VARCHAR(16),
  response_body TEXT,
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS idem_requests_updated ON idem_requests (updated_ms, req_id);
CREATE INDEX IF NOT EXISTS idem_requests_tenant ON idem_requests (tenant, updated_ms);
CREATE TABLE IF NOT EXISTS agent_steps (
  step_pk BIGSERIAL PRIMARY KEY,
  job_id VARCHAR(64),
  step_name VARCHAR(64),
  op VARCHAR(64),
  request_key VARCHAR(64),
  step_state VARCHAR(24),
  req_json TEXT,
  resp_json TEXT,
  err_text TEXT,
  before_json TEXT,
  after_json TEXT,
  agent VARCHAR(64),
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_steps_key ON agent_steps (request_key, created_ms, step_pk);
CREATE INDEX IF NOT EXISTS agent_steps_state ON agent_steps (step_state, updated_ms, step_pk);
CREATE TABLE IF NOT EXISTS orders (
  order_id UUID PRIMARY KEY,
  request_key VARCHAR(64),
  tenant VARCHAR(64),
  summary VARCHAR(255),
  order_state VARCHAR(16),
  body JSONB,
  placed_ms BIGINT NOT NULL,
  changed_ms BIGINT
);
CREATE INDEX IF NOT EXISTS orders_key ON orders (request_key);
