package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
)

// listeners returns the backends LISTENing on channel.
func listeners(t *testing.T, pool *pgxpool.Pool, channel string) []int32 {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE query = $1`,
		"LISTEN "+pgx.Identifier{channel}.Sanitize())
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// eventually retries cond, 100 times at most, 50ms apart.
func eventually(cond func() bool) bool {
	for range 100 {
		if cond() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// TestListenerLifecycle: one LISTEN connection from the first watcher on,
// kept after the last (runs one after another would otherwise open one each),
// and Close ends every watch and the connection.
func TestListenerLifecycle(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, pool, channel := newStore(t)
	ctx := t.Context()
	is.Equal(len(listeners(t, pool, channel)), 0) // no watcher, no listener

	w1, stop1 := context.WithCancel(ctx)
	w2, stop2 := context.WithCancel(ctx)
	ch1, err := s.Watch(w1, "t", "a", storage.WatchFromNow)
	is.NoErr(err)
	_, err = s.Watch(w2, "t", "b", storage.WatchFromNow)
	is.NoErr(err)
	is.Equal(len(listeners(t, pool, channel)), 1) // one connection serves every watcher
	stop1()
	_, open := <-ch1
	is.True(!open)                                // a watch ends with its context
	is.Equal(len(listeners(t, pool, channel)), 1) // still one watcher left
	stop2()
	time.Sleep(100 * time.Millisecond)
	is.Equal(len(listeners(t, pool, channel)), 1) // kept after the last watcher

	ch3, err := s.Watch(ctx, "t", "c", storage.WatchFromNow)
	is.NoErr(err)
	s.Close()
	_, open = <-ch3
	is.True(!open) // Close ends the watch
	_, err = s.Watch(ctx, "t", "c", storage.WatchFromNow)
	is.True(err != nil) // a closed store refuses to watch
	is.True(eventually(func() bool { return len(listeners(t, pool, channel)) == 0 }))
}

// TestListenerReconnects kills the LISTEN connection's backend and expects
// the watch to carry on once the store has reconnected.
func TestListenerReconnects(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, pool, channel := newStore(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	ch, err := s.Watch(ctx, "t", "c", storage.WatchFromNow)
	is.NoErr(err)
	pids := listeners(t, pool, channel)
	is.Equal(len(pids), 1)
	_, err = pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, pids[0])
	is.NoErr(err)

	// Events published while the store reconnects are read from the table
	// once it listens again: the first one arrives, then the others in order.
	is.NoErr(s.Publish(ctx, "t", "c", []storage.Event{{ID: 1, Data: []byte(`"during"`)}}))
	ev, ok := <-ch
	is.True(ok) // the watch survives the lost connection
	is.Equal(ev.ID, int64(1))
	is.Equal(string(ev.Data), `"during"`)
	is.NoErr(s.Publish(ctx, "t", "c", []storage.Event{{ID: 2, Data: []byte(`"after"`)}}))
	ev = <-ch
	is.Equal(ev.ID, int64(2)) // events flow again after the reconnect
	is.True(eventually(func() bool {
		now := listeners(t, pool, channel)
		return len(now) == 1 && now[0] != pids[0]
	}))
}
