-- Typeshift storage, version 4: live events numbered by the run that
-- publishes them, and published only while a watcher in another process
-- watches.
--
-- A run numbers its events itself, from the conversation's event_head on: it
-- holds the conversation's lease, so no other run numbers events meanwhile,
-- and the head is read by the claim and stored by the release, in statements
-- that run anyway. A new conversation's head starts at the time of its first
-- claim in microseconds, so that a conversation deleted and created again
-- never numbers an event as the deleted one did.
ALTER TABLE conversations
	ADD COLUMN event_base bigint NOT NULL DEFAULT (floor(extract(epoch FROM now()) * 1000000))::bigint,
	ADD COLUMN event_head bigint NOT NULL DEFAULT (floor(extract(epoch FROM now()) * 1000000))::bigint;

DROP TABLE conversation_event_heads;

-- The processes watching a conversation, each until expires_at unless it
-- renews its row. A run reads whether one exists when it claims the
-- conversation, and hears of a new one by a notification.
CREATE TABLE conversation_watchers (
	settings_id     text        NOT NULL,
	conversation_id text        NOT NULL,
	instance        text        NOT NULL,
	expires_at      timestamptz NOT NULL,
	PRIMARY KEY (settings_id, conversation_id, instance)
);
CREATE INDEX conversation_watchers_expiry ON conversation_watchers (settings_id, expires_at);

ALTER TABLE conversation_watchers ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_watchers FORCE ROW LEVEL SECURITY;

CREATE POLICY tenant ON conversation_watchers
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
