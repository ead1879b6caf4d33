package streambench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Counter is a pgx tracer ([pgx.QueryTracer], [pgx.BatchTracer]) that counts what the connections it is set on
// send: statements, transactions and deadlocks. Set it as the ConnConfig's Tracer of a pool (and so of every
// connection the store opens from the pool's config, such as its LISTEN connection).
//
// A transaction is counted when it ends: after each statement or batch that leaves its connection outside a
// transaction block, as its server last reported (ReadyForQuery), whether it began outside one (autocommit, a
// batch's implicit transaction, BEGIN and COMMIT in one round trip) or inside one (COMMIT, ROLLBACK, a failure).
// Two transactions sent in one round trip count as one. A statement is each Exec, Query and QueryRow, and each query of a batch; BEGIN and
// COMMIT count as statements.
type Counter struct {
	stmts, tx, rollbacks, deadlocks atomic.Int64

	mu       sync.Mutex
	backends []uint32 // the server processes of the connections opened through the pool's AfterConnect
}

// backend records the server process of a connection.
func (c *Counter) backend(pid uint32) {
	c.mu.Lock()
	c.backends = append(c.backends, pid)
	c.mu.Unlock()
}

// ServerCPU returns the CPU time, user and system, that the server processes of the connections opened through
// the pool (the store's own connections included, its LISTEN connection excepted) have used so far, as the
// server's host reports it in /proc: the benchmarks run beside their Postgres. ok is false when /proc cannot be
// read (another host, another operating system). A connection closed meanwhile takes its time with it.
func (c *Counter) ServerCPU() (cpu time.Duration, ok bool) {
	c.mu.Lock()
	pids := slices.Clone(c.backends)
	c.mu.Unlock()
	for _, pid := range pids {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // the connection closed
			}
			return 0, false
		}
		// The fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			return 0, false
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 13 {
			return 0, false
		}
		u, err1 := strconv.ParseInt(f[11], 10, 64)
		s, err2 := strconv.ParseInt(f[12], 10, 64)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		cpu += time.Duration(u+s) * time.Second / clockTicks
	}
	return cpu, true
}

// clockTicks is the unit of /proc's CPU times: USER_HZ, 100 on Linux's every architecture the tests run on.
const clockTicks = 100

// Counts are a [Counter]'s totals at one moment.
type Counts struct {
	// Stmts is how many statements were sent, Tx how many transactions ended.
	Stmts, Tx int64
	// Rollbacks is how many of Tx ended without committing.
	Rollbacks int64
	// Deadlocks is how many statements failed with SQLSTATE 40P01.
	Deadlocks int64
}

// Sub returns c minus d: what was counted between two readings.
func (c Counts) Sub(d Counts) Counts {
	return Counts{Stmts: c.Stmts - d.Stmts, Tx: c.Tx - d.Tx, Rollbacks: c.Rollbacks - d.Rollbacks, Deadlocks: c.Deadlocks - d.Deadlocks}
}

// Add returns c plus d.
func (c Counts) Add(d Counts) Counts {
	return Counts{Stmts: c.Stmts + d.Stmts, Tx: c.Tx + d.Tx, Rollbacks: c.Rollbacks + d.Rollbacks, Deadlocks: c.Deadlocks + d.Deadlocks}
}

// Counts returns the totals so far.
func (c *Counter) Counts() Counts {
	return Counts{Stmts: c.stmts.Load(), Tx: c.tx.Load(), Rollbacks: c.rollbacks.Load(), Deadlocks: c.deadlocks.Load()}
}

// Settle waits until nothing was counted for quiet (at most limit), then returns the totals: what a run left to
// do after it returned is counted with it.
func (c *Counter) Settle(quiet, limit time.Duration) Counts {
	deadline := time.Now().Add(limit)
	last := c.Counts()
	for time.Now().Before(deadline) {
		time.Sleep(quiet)
		now := c.Counts()
		if now == last {
			return now
		}
		last = now
	}
	return last
}

// idle is the status a server reports outside a transaction block.
const idle = 'I'

// end counts a transaction when the statement or batch left its connection outside a transaction block: whether
// it began outside one (autocommit) or inside (COMMIT, ROLLBACK), a transaction ended with it.
func (c *Counter) end(conn *pgx.Conn, err error) {
	if conn.PgConn().IsClosed() || conn.PgConn().TxStatus() != idle {
		return
	}
	c.tx.Add(1)
	if err != nil {
		c.rollbacks.Add(1)
	}
}

func (c *Counter) failed(err error) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "40P01" {
		c.deadlocks.Add(1)
	}
}

// TraceQueryStart implements [pgx.QueryTracer].
func (c *Counter) TraceQueryStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.stmts.Add(1)
	return ctx
}

// TraceQueryEnd implements [pgx.QueryTracer].
func (c *Counter) TraceQueryEnd(_ context.Context, conn *pgx.Conn, data pgx.TraceQueryEndData) {
	c.failed(data.Err)
	err := data.Err
	if err == nil && data.CommandTag.String() == "ROLLBACK" {
		err = errRolledBack
	}
	c.end(conn, err)
}

var errRolledBack = errors.New("rolled back")

// TraceBatchStart implements [pgx.BatchTracer].
func (c *Counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

// TraceBatchQuery implements [pgx.BatchTracer].
func (c *Counter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	c.stmts.Add(1)
	c.failed(data.Err)
}

// TraceBatchEnd implements [pgx.BatchTracer].
func (c *Counter) TraceBatchEnd(_ context.Context, conn *pgx.Conn, data pgx.TraceBatchEndData) {
	c.end(conn, data.Err)
}

var (
	_ pgx.QueryTracer = (*Counter)(nil)
	_ pgx.BatchTracer = (*Counter)(nil)
)
