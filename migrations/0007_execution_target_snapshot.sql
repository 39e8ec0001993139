-- Where a request would run, as it was resolved when it was asked: an approval is for that place.
-- If the container moved host or got another Proxmox id before the operator decided, approving
-- refuses instead of running the command somewhere the approval card never showed.
ALTER TABLE executions ADD COLUMN target_host TEXT;
ALTER TABLE executions ADD COLUMN target_pve_id INTEGER;
