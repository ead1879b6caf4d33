package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Expired events and watcher rows are deleted by one goroutine per store, apart from the writers: a batch at a
// time, for each tenant the store published or watched for lately, with the rows locked SKIP LOCKED so that two
// instances pruning at once take different rows and never wait for, or deadlock with, each other or a writer.
const (
	qPruneEvents = `DELETE FROM conversation_events e USING (
	SELECT settings_id, conversation_id, id FROM conversation_events
	WHERE settings_id = $1 AND created_at < now() - $2::bigint * interval '1 microsecond'
	ORDER BY created_at LIMIT $3
	FOR UPDATE SKIP LOCKED) old
WHERE e.settings_id = old.settings_id AND e.conversation_id = old.conversation_id AND e.id = old.id`

	qPruneWatchers = `DELETE FROM conversation_watchers w USING (
	SELECT settings_id, conversation_id, instance FROM conversation_watchers
	WHERE settings_id = $1 AND expires_at < now()
	LIMIT $2
	FOR UPDATE SKIP LOCKED) old
WHERE w.settings_id = old.settings_id AND w.conversation_id = old.conversation_id AND w.instance = old.instance`
)

// pruneBatch bounds the rows one statement deletes; pruneBatches bounds the statements per tenant and pass.
const (
	pruneBatch   = 1000
	pruneBatches = 10
)

// pruner remembers the tenants to prune and runs the passes.
type pruner struct {
	s *Store

	mu      sync.Mutex
	tenants map[string]time.Time // tenant → when the store last wrote or watched for it
	closed  bool
	stop    chan struct{}
	done    chan struct{}
}

// touch notes that the store wrote or watched for tenant now, starting the pruning goroutine with the first.
func (p *pruner) touch(tenant string) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if last, ok := p.tenants[tenant]; ok && now.Sub(last) < time.Second {
		return
	}
	if p.tenants == nil {
		p.tenants = map[string]time.Time{}
	}
	p.tenants[tenant] = now
	if !p.closed && p.stop == nil {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.loop(p.stop, p.done)
	}
}

// interval is how often a pass runs: a quarter of the retention, between a second and half a minute.
func (p *pruner) interval() time.Duration {
	return min(max(p.s.eventRetention/4, time.Second), 30*time.Second)
}

func (p *pruner) loop(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(p.interval())
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_, _ = p.pass(ctx)
			cancel()
		}
	}
}

// pass prunes every tenant it knows once and forgets the tenants that left nothing to prune and have been
// quiet for longer than the retention and a watcher's life.
func (p *pruner) pass(ctx context.Context) (int64, error) {
	p.mu.Lock()
	tenants := make(map[string]time.Time, len(p.tenants))
	for t, at := range p.tenants {
		tenants[t] = at
	}
	p.mu.Unlock()
	var total int64
	var firstErr error
	for tenant, at := range tenants {
		n, full, err := p.pruneTenant(ctx, tenant)
		total += n
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !full && n == 0 && time.Since(at) > 2*p.s.eventRetention+watcherTTL {
			p.mu.Lock()
			if p.tenants[tenant] == at {
				delete(p.tenants, tenant)
			}
			p.mu.Unlock()
		}
	}
	return total, firstErr
}

// pruneTenant deletes up to pruneBatches batches of the tenant's expired rows; full reports that rows were left.
func (p *pruner) pruneTenant(ctx context.Context, tenant string) (n int64, full bool, err error) {
	for range pruneBatches {
		b := tenantBatch(tenant)
		b.Queue(qPruneEvents, tenant, p.s.eventRetention.Microseconds(), pruneBatch)
		b.Queue(qPruneWatchers, tenant, pruneBatch)
		var events, watchers int64
		err := p.s.send(ctx, b, func(br pgx.BatchResults) error {
			tag, err := br.Exec()
			if err != nil {
				return err
			}
			events = tag.RowsAffected()
			tag, err = br.Exec()
			watchers = tag.RowsAffected()
			return err
		})
		if err != nil {
			return n, true, wrap("prune", err)
		}
		n += events + watchers
		if events < pruneBatch && watchers < pruneBatch {
			return n, false, nil
		}
	}
	return n, true, nil
}

// close stops the pruning goroutine and waits for it; the store prunes no more.
func (p *pruner) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	stop, done := p.stop, p.done
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}
