-- A running execution's last sign of life from the process that runs it. An app killed mid-command
-- leaves its executions 'running' forever otherwise; one whose heartbeat is long overdue is marked
-- failed (interrupted) by the next process that looks, and never run again by itself.
ALTER TABLE executions ADD COLUMN heartbeat_at TEXT;
CREATE INDEX executions_running ON executions (heartbeat_at) WHERE status = 'running';
