-- The shell command a plan step runs, when it runs one: the operator's reply to the plan is judged
-- against the actions of these commands.
ALTER TABLE plan_steps ADD COLUMN command TEXT;
