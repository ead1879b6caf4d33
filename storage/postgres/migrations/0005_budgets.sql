-- Typeshift storage, version 5: budgets.
--
-- budget_spend holds what each tenant's settled model calls used, per window:
-- the UTC day ('2026-12-03'), the UTC month ('2026-12') and the conversation
-- (its id). budget_runs holds one row per run that reserved: what it spent
-- and what its call in flight may still use. A run's row is live while its
-- own expiry lies ahead or, for a run with a conversation, while the claim
-- named by lease_token is the conversation's live lease: a process killed in
-- the middle of a call holds nothing once its lease expires. Dead rows are
-- deleted by the tenant's next reservation.
--
-- typeshift_budget_reserve does a run's step in one call, under a
-- transaction-scoped advisory lock per tenant, so that any number of
-- instances reserving for one tenant see each other's reservations.
CREATE TABLE budget_spend (
	settings_id    text   NOT NULL CHECK (settings_id <> ''),
	window_kind    text   NOT NULL CHECK (window_kind IN ('day', 'month', 'conversation')),
	window_key     text   NOT NULL,
	tokens         bigint NOT NULL DEFAULT 0,
	nanos          bigint NOT NULL DEFAULT 0,
	unpriced_calls bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (settings_id, window_kind, window_key)
);

CREATE TABLE budget_runs (
	settings_id     text        NOT NULL CHECK (settings_id <> ''),
	run_id          text        NOT NULL CHECK (run_id <> ''),
	conversation_id text        NOT NULL DEFAULT '',
	lease_token     text        NOT NULL DEFAULT '',
	expires_at      timestamptz NOT NULL,
	spent_tokens    bigint      NOT NULL DEFAULT 0,
	spent_nanos     bigint      NOT NULL DEFAULT 0,
	reserved_tokens bigint      NOT NULL DEFAULT 0,
	reserved_nanos  bigint      NOT NULL DEFAULT 0,
	PRIMARY KEY (settings_id, run_id)
);

ALTER TABLE budget_spend ENABLE ROW LEVEL SECURITY;
ALTER TABLE budget_spend FORCE ROW LEVEL SECURITY;
ALTER TABLE budget_runs  ENABLE ROW LEVEL SECURITY;
ALTER TABLE budget_runs  FORCE ROW LEVEL SECURITY;

CREATE POLICY tenant ON budget_spend
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));
CREATE POLICY tenant ON budget_runs
	USING (settings_id = current_setting('typeshift.settings_id', true))
	WITH CHECK (settings_id = current_setting('typeshift.settings_id', true));

-- typeshift_budget_cap returns one cap of a tenant's budget document over the
-- application's defaults: the window's measure ('tokens' or 'cost', cost in
-- billionths of the currency), or the live runs when win is 'live_runs'; -1
-- means no cap. A document that is not a budget raises an error.
CREATE FUNCTION typeshift_budget_cap(doc jsonb, def jsonb, win text, measure text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	v jsonb;
BEGIN
	IF doc IS NOT NULL AND jsonb_typeof(doc) <> 'object' THEN
		RAISE EXCEPTION 'budget document is not an object' USING ERRCODE = 'data_exception';
	END IF;
	IF win = 'live_runs' THEN
		v := doc -> win;
		IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
			v := def -> win;
		END IF;
	ELSE
		IF doc ? win AND jsonb_typeof(doc -> win) NOT IN ('object', 'null') THEN
			RAISE EXCEPTION 'budget document''s % is not an object', win USING ERRCODE = 'data_exception';
		END IF;
		v := doc -> win -> measure;
		IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
			v := def -> win -> measure;
		END IF;
	END IF;
	IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
		RETURN -1;
	END IF;
	IF jsonb_typeof(v) <> 'number' THEN
		RAISE EXCEPTION 'budget document''s % % is not a number', win, measure USING ERRCODE = 'data_exception';
	END IF;
	IF (v #>> '{}')::numeric < 0 THEN
		RETURN -1;
	END IF;
	IF measure = 'cost' THEN
		RETURN round((v #>> '{}')::numeric * 1000000000)::bigint;
	END IF;
	RETURN (v #>> '{}')::bigint;
END
$$;

-- typeshift_budget_reserve settles what the run's previous call used, then,
-- unless ending the run, reserves what its next call may use. It returns one
-- row: all NULL when granted, or the window, measure, cap, what was spent and
-- reserved, what was asked and when the window resets when refused (the
-- settlement stays). The caller names the tenant in typeshift.settings_id.
CREATE FUNCTION typeshift_budget_reserve(
	p_settings_id text, p_run_id text, p_conversation_id text, p_lease_token text, p_ttl_ms bigint,
	p_settle_tokens bigint, p_settle_nanos bigint, p_settle_unpriced boolean,
	p_reserve_tokens bigint, p_reserve_nanos bigint, p_reserve_unpriced boolean,
	p_end boolean, p_defaults jsonb)
RETURNS TABLE (r_window text, r_measure text, r_limit bigint, r_used bigint, r_asked bigint, r_unpriced boolean, r_reset timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
	v_now timestamptz;
	v_utc timestamp;
	v_doc jsonb;
	v_run budget_runs%ROWTYPE;
	v_found boolean;
	v_live bigint;
	v_held_t bigint;
	v_held_n bigint;
	v_conv_t bigint;
	v_conv_n bigint;
	v_cap bigint;
	w record;
BEGIN
	-- One tenant's steps take turns, across every connection; other tenants' do not wait.
	PERFORM pg_advisory_xact_lock(1952609651, hashtext(p_settings_id));
	v_now := clock_timestamp();
	v_utc := v_now AT TIME ZONE 'UTC';
	SELECT data INTO v_doc FROM settings_documents WHERE settings_id = p_settings_id AND kind = 'budget';

	IF p_settle_tokens > 0 OR p_settle_nanos > 0 OR p_settle_unpriced THEN
		INSERT INTO budget_spend AS s (settings_id, window_kind, window_key, tokens, nanos, unpriced_calls)
		SELECT p_settings_id, k.w, k.key, p_settle_tokens, p_settle_nanos, CASE WHEN p_settle_unpriced THEN 1 ELSE 0 END
		FROM (VALUES ('day', to_char(v_utc, 'YYYY-MM-DD')), ('month', to_char(v_utc, 'YYYY-MM')),
			('conversation', p_conversation_id)) AS k(w, key)
		WHERE k.w <> 'conversation' OR p_conversation_id <> ''
		ON CONFLICT (settings_id, window_kind, window_key) DO UPDATE
		SET tokens = s.tokens + EXCLUDED.tokens, nanos = s.nanos + EXCLUDED.nanos,
			unpriced_calls = s.unpriced_calls + EXCLUDED.unpriced_calls;
	END IF;
	UPDATE budget_runs
	SET spent_tokens = spent_tokens + p_settle_tokens, spent_nanos = spent_nanos + p_settle_nanos,
		reserved_tokens = 0, reserved_nanos = 0
	WHERE settings_id = p_settings_id AND run_id = p_run_id
	RETURNING * INTO v_run;
	v_found := FOUND;
	IF p_end THEN
		DELETE FROM budget_runs WHERE settings_id = p_settings_id AND run_id = p_run_id;
		RETURN QUERY SELECT NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::boolean, NULL::timestamptz;
		RETURN;
	END IF;

	-- The tenant's dead runs are forgotten; the rest hold what they reserved.
	DELETE FROM budget_runs r
	WHERE r.settings_id = p_settings_id AND r.run_id <> p_run_id AND r.expires_at <= v_now
		AND NOT EXISTS (SELECT 1 FROM conversations c WHERE c.settings_id = r.settings_id
			AND c.conversation_id = r.conversation_id AND r.lease_token <> '' AND c.lease_token = r.lease_token
			AND c.lease_expires_at > v_now);
	SELECT count(*), coalesce(sum(reserved_tokens), 0), coalesce(sum(reserved_nanos), 0),
		coalesce(sum(reserved_tokens) FILTER (WHERE p_conversation_id <> '' AND conversation_id = p_conversation_id), 0),
		coalesce(sum(reserved_nanos) FILTER (WHERE p_conversation_id <> '' AND conversation_id = p_conversation_id), 0)
	INTO v_live, v_held_t, v_held_n, v_conv_t, v_conv_n
	FROM budget_runs WHERE settings_id = p_settings_id AND run_id <> p_run_id;

	IF NOT (v_found AND (v_run.expires_at > v_now OR EXISTS (SELECT 1 FROM conversations c
			WHERE c.settings_id = p_settings_id AND c.conversation_id = v_run.conversation_id AND v_run.lease_token <> ''
			AND c.lease_token = v_run.lease_token AND c.lease_expires_at > v_now))) THEN
		v_cap := typeshift_budget_cap(v_doc, p_defaults, 'live_runs', '');
		IF v_cap >= 0 AND v_live >= v_cap THEN
			RETURN QUERY SELECT 'live_runs', 'runs', v_cap, v_live, 1::bigint, false, NULL::timestamptz;
			RETURN;
		END IF;
	END IF;

	FOR w IN
		SELECT k.win, k.ord, k.reset,
			coalesce(s.tokens, 0) + k.held_t AS used_t, coalesce(s.nanos, 0) + k.held_n AS used_n
		FROM (VALUES
			('day', 1, to_char(v_utc, 'YYYY-MM-DD'), (date_trunc('day', v_utc) + interval '1 day') AT TIME ZONE 'UTC', v_held_t, v_held_n),
			('month', 2, to_char(v_utc, 'YYYY-MM'), (date_trunc('month', v_utc) + interval '1 month') AT TIME ZONE 'UTC', v_held_t, v_held_n),
			('conversation', 3, p_conversation_id, NULL::timestamptz, v_conv_t, v_conv_n)
		) AS k(win, ord, key, reset, held_t, held_n)
		LEFT JOIN budget_spend s ON s.settings_id = p_settings_id AND s.window_kind = k.win AND s.window_key = k.key
		WHERE k.win <> 'conversation' OR p_conversation_id <> ''
		UNION ALL
		SELECT 'run', 4, NULL::timestamptz,
			CASE WHEN v_found THEN v_run.spent_tokens ELSE 0 END, CASE WHEN v_found THEN v_run.spent_nanos ELSE 0 END
		ORDER BY 2
	LOOP
		v_cap := typeshift_budget_cap(v_doc, p_defaults, w.win, 'tokens');
		IF v_cap >= 0 AND w.used_t + p_reserve_tokens > v_cap THEN
			RETURN QUERY SELECT w.win, 'tokens', v_cap, w.used_t, p_reserve_tokens, false, w.reset;
			RETURN;
		END IF;
		v_cap := typeshift_budget_cap(v_doc, p_defaults, w.win, 'cost');
		IF v_cap >= 0 AND (p_reserve_unpriced OR w.used_n + p_reserve_nanos > v_cap) THEN
			RETURN QUERY SELECT w.win, 'cost', v_cap, w.used_n, p_reserve_nanos, p_reserve_unpriced, w.reset;
			RETURN;
		END IF;
	END LOOP;

	INSERT INTO budget_runs AS r (settings_id, run_id, conversation_id, lease_token, expires_at, reserved_tokens, reserved_nanos)
	VALUES (p_settings_id, p_run_id, p_conversation_id, p_lease_token, v_now + p_ttl_ms * interval '1 millisecond',
		p_reserve_tokens, p_reserve_nanos)
	ON CONFLICT (settings_id, run_id) DO UPDATE
	SET conversation_id = EXCLUDED.conversation_id, lease_token = EXCLUDED.lease_token, expires_at = EXCLUDED.expires_at,
		reserved_tokens = EXCLUDED.reserved_tokens, reserved_nanos = EXCLUDED.reserved_nanos;
	RETURN QUERY SELECT NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::boolean, NULL::timestamptz;
END
$$;
