package streambench_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/streambench"
)

// TestCounter checks what the counter counts against statements whose transactions are known.
func TestCounter(t *testing.T) {
	pg := streambench.OpenPostgres(t, nil)
	ctx := context.Background()
	if _, err := pg.Pool.Exec(ctx, `CREATE TABLE t (id int PRIMARY KEY, v int)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Pool.Exec(ctx, `INSERT INTO t VALUES (1, 0), (2, 0)`); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		do   func() error
		want streambench.Counts
	}{
		{"autocommit", func() error {
			_, err := pg.Pool.Exec(ctx, `UPDATE t SET v = v + 1 WHERE id = $1`, 1)
			return err
		}, streambench.Counts{Stmts: 1, Tx: 1}},
		{"query", func() error {
			var n int
			return pg.Pool.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n)
		}, streambench.Counts{Stmts: 1, Tx: 1}},
		{"batch", func() error {
			b := &pgx.Batch{}
			b.Queue(`UPDATE t SET v = v + 1 WHERE id = 1`)
			b.Queue(`UPDATE t SET v = v + 1 WHERE id = 2`)
			b.Queue(`SELECT 1`)
			return pg.Pool.SendBatch(ctx, b).Close()
		}, streambench.Counts{Stmts: 3, Tx: 1}},
		{"begin-commit", func() error {
			return pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, `UPDATE t SET v = v + 1 WHERE id = 1`); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, `UPDATE t SET v = v + 1 WHERE id = 2`)
				return err
			})
		}, streambench.Counts{Stmts: 4, Tx: 1}},
		{"rollback", func() error {
			err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, `UPDATE t SET v = v + 1 WHERE id = 1`); err != nil {
					return err
				}
				return errors.New("give up")
			})
			if err == nil || err.Error() != "give up" {
				return errors.New("the transaction was not given up")
			}
			return nil
		}, streambench.Counts{Stmts: 3, Tx: 1, Rollbacks: 1}},
		{"failure", func() error {
			if _, err := pg.Pool.Exec(ctx, `INSERT INTO t VALUES (1, 0)`); err == nil {
				return errors.New("a duplicate key was inserted")
			}
			return nil
		}, streambench.Counts{Stmts: 1, Tx: 1, Rollbacks: 1}},
		{"one round trip", func() error {
			_, err := pg.Pool.Exec(ctx, `BEGIN; UPDATE t SET v = v + 1 WHERE id = 1; COMMIT`)
			return err
		}, streambench.Counts{Stmts: 1, Tx: 1}},
		{"deadlock", func() error { return deadlock(ctx, pg) }, streambench.Counts{Stmts: 8, Tx: 2, Rollbacks: 1, Deadlocks: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			before := pg.Counter.Counts()
			is.NoErr(c.do())
			is.Equal(pg.Counter.Counts().Sub(before), c.want)
		})
	}
}

// deadlock runs two transactions that lock the two rows in opposite orders; Postgres ends one with 40P01.
func deadlock(ctx context.Context, pg *streambench.PG) error {
	var locked, wg sync.WaitGroup
	locked.Add(2)
	errs := make([]error, 2)
	for i, order := range [][2]int{{1, 2}, {2, 1}} {
		wg.Go(func() {
			errs[i] = pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, `UPDATE t SET v = v + 1 WHERE id = $1`, order[0]); err != nil {
					locked.Done()
					return err
				}
				locked.Done()
				locked.Wait()
				_, err := tx.Exec(ctx, `UPDATE t SET v = v + 1 WHERE id = $1`, order[1])
				return err
			})
		})
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		return errors.Join(errors.New("not one deadlock"), errs[0], errs[1])
	}
	return nil
}

func TestPacedStamps(t *testing.T) {
	is := is.New(t)
	probe := &streambench.Probe{}
	_, ok := probe.Since()
	is.True(!ok) // no stream yet
	ctx := streambench.WithProbe(context.Background(), probe)
	m := streambench.Paced{Tokens: 5, Interval: 10 * time.Millisecond}
	start := time.Now()
	var text strings.Builder
	var last chat.Update
	for u, err := range m.Stream(ctx, nil, nil) {
		is.NoErr(err)
		for _, p := range u.Parts {
			if tx, ok := p.(chat.Text); ok {
				text.WriteString(tx.Text)
			}
		}
		last = u
	}
	is.True(time.Since(start) >= 40*time.Millisecond) // four intervals between five deltas
	is.Equal(last.FinishReason, chat.FinishStop)
	is.Equal(streambench.Stamps(text.String()), 5)
	delays := streambench.Delays(nil, text.String())
	is.Equal(len(delays), 5)
	is.True(delays[0] >= 40*time.Millisecond) // the first delta was yielded four intervals before the last
	is.True(delays[0] > delays[4])
	_, ok = probe.Since()
	is.True(ok) // the last update was recorded
}

func TestDelaysSkipsText(t *testing.T) {
	is := is.New(t)
	is.Equal(streambench.Stamps("hello @ world @x @12 @"), 1)
	is.Equal(len(streambench.Delays(nil, "hello @ world @x @12 @")), 1)
}

func TestSampleQuantile(t *testing.T) {
	is := is.New(t)
	var s streambench.Sample
	is.Equal(s.Quantile(0.5), time.Duration(0))
	for i := 100; i >= 1; i-- {
		s.Add(time.Duration(i) * time.Millisecond)
	}
	is.Equal(s.Quantile(0.5), 50*time.Millisecond)
	is.Equal(s.Quantile(0.99), 99*time.Millisecond)
	is.Equal(s.Quantile(1), 100*time.Millisecond)
	is.Equal(s.Len(), 100)
}
