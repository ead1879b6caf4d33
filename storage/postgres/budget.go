package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/budgetcalc"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

var _ storage.Budgeter = (*Store)(nil)

const (
	qReserveBudget = `SELECT r_window, r_measure, r_limit, r_used, r_asked, r_unpriced, r_reset
FROM typeshift_budget_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

	qBudgetDocument = `SELECT data FROM settings_documents WHERE settings_id = $1 AND kind = 'budget'`

	qBudgetSpend = `SELECT window_kind, window_key, tokens, nanos, unpriced_calls FROM budget_spend
WHERE settings_id = $1 AND (window_kind, window_key) IN (('day', $2), ('month', $3), ('conversation', $4))`

	qBudgetLive = `SELECT count(*), coalesce(sum(reserved_tokens), 0), coalesce(sum(reserved_nanos), 0), now()
FROM budget_runs r
WHERE r.settings_id = $1 AND (r.expires_at > now() OR EXISTS (SELECT 1 FROM conversations c
	WHERE c.settings_id = r.settings_id AND c.conversation_id = r.conversation_id AND r.lease_token <> ''
	AND c.lease_token = r.lease_token AND c.lease_expires_at > now()))`

	// qEndBudget ends a run's budget in the transaction of an append, only when the append stored its entries:
	// the conversation's row is then a version this transaction wrote (the append's reservation of sequence
	// numbers; the lock taken before it writes none). The function is called through the row, laterally, so
	// that no row means no call.
	qEndBudget = `SELECT count(*) FROM conversations c, LATERAL typeshift_budget_reserve(c.settings_id, $3, $4, $5, 0,
	$6, $7, $8, 0, 0, false, true, '{}'::jsonb) r
WHERE c.settings_id = $1 AND c.conversation_id = $2 AND c.xmin = pg_current_xact_id()::xid`

	qDeleteBudgetSpend = `DELETE FROM budget_spend WHERE settings_id = $1`
	qDeleteBudgetRuns  = `DELETE FROM budget_runs WHERE settings_id = $1`
)

// ReserveBudget implements [storage.Budgeter] in one round trip: the tenant's steps take turns under an advisory
// lock of the transaction, so instances racing for one tenant overspend by no more than what they reserved.
func (s *Store) ReserveBudget(ctx context.Context, r storage.BudgetReservation) error {
	b, err := reserveBatch(r)
	if err != nil {
		return err
	}
	var refused error
	err = s.send(ctx, b, func(br pgx.BatchResults) error {
		var err error
		refused, err = readReserve(br, r.SettingsID)
		return err
	})
	if err != nil {
		return reserveError(r.SettingsID, err)
	}
	return refused
}

// reserveRead is BeginRun of a run without a conversation, in one round trip: the reservation, when asked, then
// the reads.
func (s *Store) reserveRead(ctx context.Context, b storage.RunBegin) (storage.RunBegun, error) {
	var out storage.RunBegun
	if b.Reserve == nil && len(b.Kinds) == 0 {
		return out, nil
	}
	bt := tenantBatch(b.SettingsID)
	if b.Reserve != nil {
		var err error
		if bt, err = reserveBatch(*b.Reserve); err != nil {
			return out, err
		}
	}
	for _, k := range b.Kinds {
		bt.Queue(qGetSettings, b.SettingsID, k)
	}
	var corrupt error
	err := s.send(ctx, bt, func(br pgx.BatchResults) error {
		if b.Reserve != nil {
			var err error
			if out.ReserveErr, err = readReserve(br, b.SettingsID); err != nil {
				return err
			}
			out.Reserved = out.ReserveErr == nil
		}
		for _, k := range b.Kinds {
			doc, found, err := readSettings(br, b.SettingsID, k)
			if _, bad := errors.AsType[*storage.CorruptSettingsError](err); bad {
				if corrupt == nil {
					corrupt = err
				}
				continue
			}
			if err != nil {
				return err // the batch failed
			}
			if found {
				if out.Settings == nil {
					out.Settings = map[string]storage.Document{}
				}
				out.Settings[k] = doc
			}
		}
		return nil
	})
	if err != nil { // the batch is one transaction: nothing was reserved
		out.Reserved = false
		if b.Reserve != nil {
			out.ReserveErr = reserveError(b.SettingsID, err)
		}
		return out, wrap("get settings", err)
	}
	return out, corrupt
}

// reserveBatch returns the tenant's batch of r's reservation, checked.
func reserveBatch(r storage.BudgetReservation) (*pgx.Batch, error) {
	if err := storeutil.CheckBudgetReservation(r); err != nil {
		return nil, err
	}
	defaults, err := json.Marshal(r.Defaults)
	if err != nil {
		return nil, fmt.Errorf("postgres: budget defaults: %w", err)
	}
	b := tenantBatch(r.SettingsID)
	b.Queue(qReserveBudget, r.SettingsID, r.RunID, r.ConversationID, r.LeaseToken, r.TTL.Milliseconds(),
		r.Settle.Tokens, r.Settle.Nanos, r.Settle.Unpriced, r.Reserve.Tokens, r.Reserve.Nanos, r.Reserve.Unpriced, r.End, string(defaults))
	return b, nil
}

// readReserve reads the answer of qReserveBudget: refused is the reservation's refusal, or nil.
func readReserve(br pgx.BatchResults, settingsID string) (refused, err error) {
	var (
		window, measure    *string
		limit, used, asked *int64
		unpriced           *bool
		reset              *time.Time
	)
	if err := br.QueryRow().Scan(&window, &measure, &limit, &used, &asked, &unpriced, &reset); err != nil {
		return nil, err
	}
	if window == nil {
		return nil, nil
	}
	e := &storage.BudgetExceededError{SettingsID: settingsID, Window: *window, Measure: *measure, Limit: *limit, Used: *used,
		Asked: *asked, Unpriced: *unpriced}
	if reset != nil {
		e.ResetAt = reset.UTC()
	}
	return e, nil
}

// reserveError is the error of a reservation whose round trip failed.
func reserveError(settingsID string, err error) error {
	var pgErr interface{ SQLState() string }
	if errors.As(err, &pgErr) && pgErr.SQLState()[:2] == "22" { // data exception: the document is no budget
		return &storage.CorruptSettingsError{SettingsID: settingsID, Kind: storage.BudgetKind, Err: err}
	}
	return wrap("reserve budget", err)
}

// queueBudgetEnd queues qEndBudget of e, after the append of claim c in b.
func queueBudgetEnd(b *pgx.Batch, c storage.Claim, e storage.BudgetReservation) {
	b.Queue(qEndBudget, c.SettingsID, c.ConversationID, e.RunID, e.ConversationID, e.LeaseToken,
		e.Settle.Tokens, e.Settle.Nanos, e.Settle.Unpriced)
}

// BudgetUsage implements [storage.Budgeter] in one round trip.
func (s *Store) BudgetUsage(ctx context.Context, settingsID, conversationID string, defaults storage.BudgetLimits) (storage.BudgetUsage, error) {
	if err := storeutil.CheckDocumentKey(settingsID, storage.BudgetKind); err != nil {
		return storage.BudgetUsage{}, err
	}
	if err := storage.CheckText("conversation id", conversationID); err != nil {
		return storage.BudgetUsage{}, err
	}
	// The windows are those of the database's clock, read by the last statement; the keys of the first are
	// those of this process's clock, and a query at midnight may read the day before: both are asked for.
	now := time.Now()
	dayKey, _, monthKey, _ := budgetcalc.Windows(now)
	b := tenantBatch(settingsID)
	b.Queue(qBudgetDocument, settingsID)
	b.Queue(qBudgetSpend, settingsID, dayKey, monthKey, conversationID)
	b.Queue(qBudgetLive, settingsID)
	u := storage.BudgetUsage{Limits: defaults}
	spent := map[[2]string]storage.WindowUsage{}
	var dbNow time.Time
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		var doc []byte
		if err := br.QueryRow().Scan(&doc); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if doc != nil {
			l, err := storeutil.ParseBudgetLimits(doc)
			if err != nil {
				return &storage.CorruptSettingsError{SettingsID: settingsID, Kind: storage.BudgetKind, Err: err}
			}
			u.Limits = budgetcalc.Over(defaults, l)
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			var w storage.WindowUsage
			if err := rows.Scan(&w.Window, &w.Key, &w.Spent.Tokens, &w.Spent.Nanos, &w.UnpricedCalls); err != nil {
				rows.Close()
				return err
			}
			spent[[2]string{w.Window, w.Key}] = w
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		return br.QueryRow().Scan(&u.LiveRuns, &u.Reserved.Tokens, &u.Reserved.Nanos, &dbNow)
	})
	var corrupt *storage.CorruptSettingsError
	if errors.As(err, &corrupt) {
		return storage.BudgetUsage{}, err
	}
	if err != nil {
		return storage.BudgetUsage{}, wrap("budget usage", err)
	}
	dayKey, dayReset, monthKey, monthReset := budgetcalc.Windows(dbNow)
	add := func(window, key string, reset time.Time) {
		w := spent[[2]string{window, key}]
		w.Window, w.Key, w.ResetAt = window, key, reset
		u.Windows = append(u.Windows, w)
	}
	add(storage.WindowDay, dayKey, dayReset)
	add(storage.WindowMonth, monthKey, monthReset)
	if conversationID != "" {
		add(storage.WindowConversation, conversationID, time.Time{})
	}
	return u, nil
}

// DeleteBudget implements [storage.Budgeter].
func (s *Store) DeleteBudget(ctx context.Context, settingsID string) error {
	if err := storage.CheckIDs(settingsID); err != nil {
		return err
	}
	b := tenantBatch(settingsID)
	b.Queue(qDeleteBudgetSpend, settingsID)
	b.Queue(qDeleteBudgetRuns, settingsID)
	return wrap("delete budget", s.send(ctx, b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		_, err := br.Exec()
		return err
	}))
}
