package postgres_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
)

// TestSteerRacesRelease steers a conversation over and over while its run stores its last entries and gives the
// claim up (EndRun, with no lock of its own: the append's update of the conversation's row orders the two),
// 40 times: every input Steer accepted is in the conversation once, after the run's entries, nothing stays queued,
// and the count of queued input on the conversation's row is back to nothing.
func TestSteerRacesRelease(t *testing.T) {
	is := is.New(t)
	pool, _ := newPool(t)
	s := openStore(t, pool, nil)
	ctx := t.Context()
	const sid = "tenant"
	for round := range 40 {
		id := fmt.Sprintf("race-%d", round)
		c, err := s.Claim(ctx, sid, id, "run", time.Minute)
		is.NoErr(err)
		_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: []byte(`{}`)})
		is.NoErr(err)

		var accepted []string
		var wg sync.WaitGroup
		wg.Go(func() {
			for n := 0; ; n++ {
				data := fmt.Sprintf(`{"n": %d}`, n)
				err := s.Steer(ctx, sid, id, []byte(data))
				if errors.Is(err, storage.ErrNotRunning) {
					return
				}
				if err != nil {
					t.Errorf("Steer: %v", err)
					return
				}
				accepted = append(accepted, data)
			}
		})
		time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		_, err = s.EndRun(ctx, storage.RunEnd{Claim: c, Entries: []storage.Entry{storage.Entry{Type: storage.EntryRunEnd, Data: []byte(`{}`)}}})
		is.NoErr(err)
		wg.Wait()

		all, err := s.LoadAll(ctx, sid, id)
		is.NoErr(err)
		var types []storage.EntryType
		var steered []string
		for _, e := range all {
			types = append(types, e.Type)
			if e.Type == storage.EntrySteering {
				steered = append(steered, string(e.Data))
			}
		}
		is.Equal(types[:2], []storage.EntryType{storage.EntryInput, storage.EntryRunEnd}) // the run's entries first
		is.Equal(len(steered), len(accepted))                                             // every accepted input stored once
		is.Equal(steered, accepted)                                                       // in the order it was queued (jsonb writes {"n": 0} as it was sent)

		var queuedRows, count int64
		err = s.TenantTx(ctx, sid, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM conversation_steering WHERE conversation_id = $1),
	steering_queued FROM conversations WHERE conversation_id = $1`, id).Scan(&queuedRows, &count)
		})
		is.NoErr(err)
		is.Equal(queuedRows, int64(0)) // nothing left queued
		is.Equal(count, int64(0))      // and the row counts nothing queued
	}
}
