-- Typeshift storage, version 6: how much steering input is queued for a
-- conversation, on its row.
--
-- Steering input is queued while a run holds the conversation, and almost
-- never is. Steer counts what it queues on the conversation's row, in the
-- statement that checks the lease, so a claim and a run's last store read on
-- the row they write anyway whether there is any to move, and spend no
-- statement on an empty queue. The row is also what orders them: a Steer
-- updates it, so a run's last store that updates it after waits for that
-- Steer's commit and reads its count, and a Steer after waits for the run's
-- release and finds no live lease. The column is not indexed: updating it
-- keeps the row's updates HOT.
ALTER TABLE conversations ADD COLUMN steering_queued bigint NOT NULL DEFAULT 0;

-- What is queued already is counted. The migration's role owns the tables,
-- which force row-level security on it too: the policies are lifted for
-- this statement alone, inside the migration's transaction.
ALTER TABLE conversations NO FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_steering NO FORCE ROW LEVEL SECURITY;
UPDATE conversations c SET steering_queued = q.n
FROM (SELECT settings_id, conversation_id, count(*) AS n FROM conversation_steering GROUP BY 1, 2) q
WHERE c.settings_id = q.settings_id AND c.conversation_id = q.conversation_id;
ALTER TABLE conversations FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_steering FORCE ROW LEVEL SECURITY;
