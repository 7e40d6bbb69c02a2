-- The "shop" shape on MySQL/MariaDB (see shop.ini).
CREATE TABLE IF NOT EXISTS idem_requests (
  req_id BIGINT AUTO_INCREMENT PRIMARY KEY,
  request_key VARCHAR(64) NOT NULL UNIQUE,
  kind VARCHAR(32) NOT NULL,
  tenant VARCHAR(64),
  state VARCHAR(16),
  response_body LONGTEXT,
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL,
  INDEX idem_requests_updated (updated_ms, req_id),
  INDEX idem_requests_tenant (tenant, updated_ms)
) CHARACTER SET utf8mb4;
CREATE TABLE IF NOT EXISTS agent_steps (
  step_pk BIGINT AUTO_INCREMENT PRIMARY KEY,
  job_id VARCHAR(64),
  step_name VARCHAR(64),
  op VARCHAR(64),
  request_key VARCHAR(64),
  step_state VARCHAR(24),
  req_json LONGTEXT,
  resp_json LONGTEXT,
  err_text LONGTEXT,
  before_json LONGTEXT,
  after_json LONGTEXT,
  agent VARCHAR(64),
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL,
  INDEX agent_steps_key (request_key, created_ms, step_pk),
  INDEX agent_steps_state (step_state, updated_ms, step_pk)
) CHARACTER SET utf8mb4;
CREATE TABLE IF NOT EXISTS orders (
  order_id CHAR(36) PRIMARY KEY,
  request_key VARCHAR(64),
  tenant VARCHAR(64),
  summary VARCHAR(255),
  order_state VARCHAR(16),
  body JSON,
  placed_ms BIGINT NOT NULL,
  changed_ms BIGINT,
  INDEX orders_key (request_key)
) CHARACTER SET utf8mb4;
