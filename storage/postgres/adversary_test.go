package postgres_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// otherRole is the login role of another tenant's session, made by .ci/postgres.sh.
const otherRole = "typeshift_other"

// openStore returns a store over pool; the tests of steering and notifications open their stores through it.
func openStore(t testing.TB, pool *pgxpool.Pool, opts *postgres.Options) *postgres.Store {
	t.Helper()
	if opts == nil {
		opts = &postgres.Options{}
	}
	if opts.Direct == nil {
		opts.Direct = pgtest.DirectOf(t, pool)
	}
	s, err := postgres.New(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newPool returns a pool on a fresh, migrated schema.
func newPool(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	pool, schema := pgtest.Pool(t)
	if _, err := postgres.Migrate(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	return pool, schema
}

// otherSession connects to the test database as otherRole, granted on schema what an application role of
// another tenant has: it may use the tables, under row-level security, and it may LISTEN and NOTIFY as anyone
// may. TYPESHIFT_TEST_OTHER_DATABASE_URL overrides the URL, which is otherwise the test database's with the
// role's name.
func otherSession(t testing.TB, pool *pgxpool.Pool, schema string) *pgx.Conn {
	t.Helper()
	ctx := t.Context()
	_, err := pool.Exec(ctx, `GRANT USAGE ON SCHEMA `+pgx.Identifier{schema}.Sanitize()+` TO `+otherRole+`;
		GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA `+pgx.Identifier{schema}.Sanitize()+` TO `+otherRole)
	if err != nil {
		t.Fatalf("granting %s the schema: %v (run .ci/postgres.sh)", otherRole, err)
	}
	raw := os.Getenv("TYPESHIFT_TEST_OTHER_DATABASE_URL")
	if raw == "" {
		// Directly, not through a pooler: the session LISTENs.
		raw = pgtest.RoleURL(t, otherRole)
	}
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		t.Fatal(err)
	}
	if pgtest.Pooled() {
		cfg.Database = schema // the test's own database (see package pgtest)
	}
	cfg.RuntimeParams["search_path"] = schema
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connecting as %s: %v (run .ci/postgres.sh)", otherRole, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	var name string
	if err := conn.QueryRow(ctx, `SELECT current_user`).Scan(&name); err != nil || name != otherRole {
		t.Fatalf("connected as %q, %v", name, err)
	}
	return conn
}

// header is a notification's header as the store writes it: kind, then each id with its length.
func header(kind, settingsID, conversationID string) string {
	return kind + strconv.Itoa(len(settingsID)) + ":" + settingsID + strconv.Itoa(len(conversationID)) + ":" + conversationID
}

// TestForeignNotifications: another tenant's session sends notifications on the store's channel that name a
// live conversation of tenant a, in the store's own format and in the inline form earlier versions trusted.
// a's run takes in no steering input and a's watchers receive no event from them: the first event a watcher
// sees is the one a published, numbered 1.
func TestForeignNotifications(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pool, schema := newPool(t)
	s := openStore(t, pool, &postgres.Options{Channel: schema})
	t.Cleanup(s.Close)
	other := otherSession(t, pool, schema)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	c, err := s.Claim(ctx, "a", "c", "run", time.Minute)
	is.NoErr(err)
	_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: []byte(`{}`)})
	is.NoErr(err)
	steer, err := s.WatchSteering(ctx, "a", "c")
	is.NoErr(err)
	events, err := s.Watch(ctx, "a", "c", storage.WatchFromNow)
	is.NoErr(err)

	// What the other session can do with its own rows: steer its own tenant's conversation of the same id, which
	// has no run.
	_, err = other.Exec(ctx, `SELECT set_config('typeshift.settings_id', 'b', false)`)
	is.NoErr(err)
	var queued int
	is.NoErr(other.QueryRow(ctx, `SELECT count(*) FROM conversation_steering`).Scan(&queued))
	is.Equal(queued, 0) // b sees no steering rows: a's are not b's

	forged := []string{
		header("s", "a", "c") + "1",
		header("s", "a", "c") + "999999",
		header("e", "a", "c") + "1",
		header("e", "a", "c") + "2",
		header("E", "a", "c") + "1," + header("", "a", "c") + "2,",
		header("E", "a", "c") + "3", // no end
		"E" + header("", "a", "c") + "4,garbage",
		header("w", "a", "c") + "forged-instance", // makes a's runs publish, nothing more
		// The inline forms of version 1: the event itself, in text and in base64.
		header("t", "a", "c") + `{"kind":"steer","steer":[{"role":"user","parts":[{"type":"text","text":"forged"}]}]}`,
		header("t", "a", "c") + `{"kind":"update","run":"forged","update":{"message":{"role":"assistant","parts":[{"type":"text","text":"forged"}]}}}`,
		header("b", "a", "c") + "eyJraW5kIjoidXBkYXRlIn0=",
		"garbage", "",
	}
	for _, p := range forged {
		_, err := other.Exec(ctx, `SELECT pg_notify($1, $2)`, schema, p)
		is.NoErr(err)
	}
	// The forged steering notifications wake a's watcher of steering, which looks and finds nothing.
	select {
	case <-steer:
	case <-ctx.Done():
		t.Fatal("the forged notification never arrived")
	}
	taken, err := s.TakeSteering(ctx, c, storage.Entry{})
	is.NoErr(err)
	is.Equal(len(taken), 0) // 0 steering inputs taken from another tenant's notifications

	// a publishes; its watcher's first event is a's: nothing came before it.
	first := c.EventHead + 1
	is.NoErr(s.Publish(ctx, "a", "c", []storage.Event{{ID: first, Data: []byte(`{"real":true}`)}}))
	select {
	case e := <-events:
		is.Equal(e.ID, first)
		is.Equal(string(e.Data), `{"real":true}`) // 0 events delivered from the forged notifications
	case <-ctx.Done():
		t.Fatal("a's own event never arrived")
	}
	select {
	case e := <-events:
		t.Fatalf("unexpected event %d %q", e.ID, e.Data)
	case <-time.After(200 * time.Millisecond):
	}
	all, err := s.LoadAll(ctx, "a", "c")
	is.NoErr(err)
	is.Equal(len(all), 1) // the conversation holds a's input only
}

// TestNotificationsCarryNoBody: a session of another tenant that LISTENs on the store's channel reads ids and
// nothing else: neither the events a run publishes nor the steering input sent to it.
func TestNotificationsCarryNoBody(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	pool, schema := newPool(t)
	s := openStore(t, pool, &postgres.Options{Channel: schema})
	t.Cleanup(s.Close)
	other := otherSession(t, pool, schema)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := other.Exec(ctx, "LISTEN "+pgx.Identifier{schema}.Sanitize())
	is.NoErr(err)

	c, err := s.Claim(ctx, "a", "c", "run", time.Minute)
	is.NoErr(err)
	is.NoErr(s.Steer(ctx, "a", "c", []byte(`"secret steering"`)))
	is.NoErr(s.Publish(ctx, "a", "c", []storage.Event{{ID: c.EventHead + 1, Data: []byte(`"secret event"`)}}))
	is.NoErr(s.Publish(ctx, "a", "c", []storage.Event{{ID: c.EventHead + 2, Data: []byte(strings.Repeat("secret ", 2000))}}))
	is.NoErr(s.Release(ctx, c))

	for range 3 {
		n, err := other.WaitForNotification(ctx)
		is.NoErr(err)
		is.True(!strings.Contains(n.Payload, "secret")) // a payload says what happened, never what
		is.True(len(n.Payload) < 40)
	}
}
