-- Typeshift storage, version 1: settings documents, conversations with their
-- lease, conversation entries, and the bodies of large live events.
--
-- Every table carries settings_id and is guarded by a row-level security
-- policy that admits only the rows of the tenant named by the transaction's
-- typeshift.settings_id setting. FORCE makes the policy bind the tables'
-- owner too, so a query of the store that forgot its tenant finds nothing.
-- A missing setting reads as NULL and an ended transaction's as '', and
-- neither matches a row, since settings ids are never empty.

CREATE TABLE settings_documents (
	settings_id    text        NOT NULL CHECK (settings_id <> ''),
	kind           text        NOT NULL CHECK (kind <> ''),
	schema_version integer     NOT NULL,
	revision       bigint      NOT NULL,
	data           jsonb       NOT NULL,
	updated_at     timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (settings_id, kind)
);

-- One row per conversation: the lease, the counters Append needs, and what
-- List shows. A row with last_seq = 0 holds a lease but no entries yet.
CREATE TABLE conversations (
	settings_id      text        NOT NULL CHECK (settings_id <> ''),
	conversation_id  text        NOT NULL CHECK (conversation_id <> ''),
	last_seq         bigint      NOT NULL DEFAULT 0,
	last_summary_seq bigint      NOT NULL DEFAULT 0,
	created_at       timestamptz NOT NULL DEFAULT now(),
	updated_at       timestamptz NOT NULL DEFAULT now(),
	lease_owner      text,
	lease_token      text,
	lease_expires_at timestamptz,
	PRIMARY KEY (settings_id, conversation_id)
) WITH (fillfactor = 80);
-- Room on each page lets the per-step update of a conversation (its lease
-- check and sequence counter) be a HOT update: no index changes, no bloat.

-- List: a tenant's conversations, newest first, paged by (updated_at,
-- conversation_id). No partial predicate on last_seq: a column an index
-- depends on would make every Append's update a non-HOT one; List filters
-- the few rows without entries instead.
CREATE INDEX conversations_recent
	ON conversations (settings_id, updated_at DESC, conversation_id DESC);

-- Entries are append-only. The primary key serves Load (a range of seq of one
-- conversation) and keeps sequence numbers unique. There is no foreign key to
-- conversations: Append inserts only through the conversation row it has
-- just updated, and Delete removes both, so the key's trigger would check
-- what the statement already guarantees, on every row.
CREATE TABLE conversation_entries (
	settings_id     text        NOT NULL,
	conversation_id text        NOT NULL,
	seq             bigint      NOT NULL,
	type            text        NOT NULL,
	run_id          text        NOT NULL DEFAULT '',
	agent           text        NOT NULL DEFAULT '',
	author          text        NOT NULL DEFAULT '',
	created_at      timestamptz NOT NULL,
	schema_version  smallint    NOT NULL,
	data            jsonb       NOT NULL,
	PRIMARY KEY (settings_id, conversation_id, seq)
);

-- Bodies of live events too large for a NOTIFY payload. The notification
-- carries the row's id; watchers read it and Publish prunes old rows.
CREATE TABLE conversation_events (
	id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	settings_id     text        NOT NULL,
	conversation_id text        NOT NULL,
	body            bytea       NOT NULL,
	created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_events_age ON conversation_events (settings_id, created_at);

ALTER TABLE settings_documents   ENABLE ROW LEVEL SECURITY;
ALTER TABLE settings_documents   FORCE ROW LEVEL SECURITY;
ALTER TABLE conversations        ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversations        FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_entries ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_entries FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_events  ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_events  FORCE ROW LEVEL SECURITY;

CREATE POLICY tenant ON settings_documents
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
CREATE POLICY tenant ON conversations
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
CREATE POLICY tenant ON conversation_entries
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
CREATE POLICY tenant ON conversation_events
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
