-- An operator in one process (the desktop) may stop a command another process (the CLI) runs:
-- the request is recorded here and the running process, which polls it, kills the command.
ALTER TABLE executions ADD COLUMN cancel_requested_at TEXT;
