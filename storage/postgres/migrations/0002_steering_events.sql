-- Typeshift storage, version 2: steering input queued for a conversation's
-- live run, and live events kept by id so that a watcher can resume.
--
-- Notifications carry nothing but ids from now on: the receiver reads what
-- one names from these tables, under its own tenant's row-level security, so
-- a notification sent by anyone else who can reach the channel makes it look
-- and find nothing. The events table of version 1 held only the bodies of
-- large events for a minute; it is replaced.

-- Steering input Steer accepted, waiting for the claim holder to move it into
-- conversation_entries. Steer inserts a row only while the conversation's
-- lease is live, in the same statement that checks it.
CREATE TABLE conversation_steering (
	id              bigint      GENERATED ALWAYS AS IDENTITY,
	settings_id     text        NOT NULL,
	conversation_id text        NOT NULL,
	data            jsonb       NOT NULL,
	created_at      timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (settings_id, conversation_id, id)
);

DROP TABLE conversation_events;

-- A conversation's latest events. id counts a conversation's events from 1
-- without gaps: conversation_event_heads holds the last one given out, and
-- the row lock of its update orders the publishers of one conversation, so
-- that events commit in the order of their ids.
CREATE TABLE conversation_events (
	settings_id     text        NOT NULL,
	conversation_id text        NOT NULL,
	id              bigint      NOT NULL,
	body            bytea       NOT NULL,
	created_at      timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (settings_id, conversation_id, id)
);
CREATE INDEX conversation_events_age ON conversation_events (settings_id, created_at);

CREATE TABLE conversation_event_heads (
	settings_id     text   NOT NULL,
	conversation_id text   NOT NULL,
	last_id         bigint NOT NULL,
	PRIMARY KEY (settings_id, conversation_id)
);

ALTER TABLE conversation_steering    ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_steering    FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_events      ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_events      FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_event_heads ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_event_heads FORCE ROW LEVEL SECURITY;

CREATE POLICY tenant ON conversation_steering
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
CREATE POLICY tenant ON conversation_events
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
CREATE POLICY tenant ON conversation_event_heads
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
