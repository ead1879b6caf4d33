-- Typeshift storage, version 3: background sub-agent runs.
--
-- One row per background run, keyed by its id (which is also the id of the
-- sub-agent's own conversation). The row holds everything a tenant wrote
-- about the run: the job (the task text, mode, standing approvals, caller,
-- approval answers), its state, its answer or error and the approval requests
-- it waits for. A job queue beside the store (River, in package riverqueue)
-- keeps only the tenant's id and the run's id in its own tables, so that what
-- the queue's role reads across tenants says nothing of any tenant's work.
--
-- generation counts the run's resumptions after a wait for approval: the
-- queue's job for an older generation finds its generation gone and does
-- nothing. cancel_requested marks a cancellation asked for while a worker ran
-- the job. queue_job_id is the queue's id of the run's latest job.
CREATE TABLE background_runs (
	settings_id      text        NOT NULL CHECK (settings_id <> ''),
	id               text        NOT NULL CHECK (id <> ''),
	job              bytea       NOT NULL,
	status           text        NOT NULL CHECK (status IN
		('queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'timed_out')),
	result           text        NOT NULL DEFAULT '',
	error            text        NOT NULL DEFAULT '',
	pending          bytea,
	attempts         integer     NOT NULL DEFAULT 0,
	generation       integer     NOT NULL DEFAULT 0,
	cancel_requested boolean     NOT NULL DEFAULT false,
	deadline         timestamptz,
	queue_job_id     bigint,
	created_at       timestamptz NOT NULL DEFAULT now(),
	updated_at       timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (settings_id, id)
);

-- The tenant's live runs, which its limit counts.
CREATE INDEX background_runs_live ON background_runs (settings_id)
	WHERE status IN ('queued', 'running', 'waiting');

ALTER TABLE background_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE background_runs FORCE ROW LEVEL SECURITY;

CREATE POLICY tenant ON background_runs
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
