-- How to kill what a running execution started, so any process can stop it when the process that
-- runs it is gone (killed, or the machine it ran on went away). Not a secret: a marker and a pid
-- search, no part of the command.
ALTER TABLE executions ADD COLUMN kill_line TEXT;
