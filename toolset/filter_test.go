package toolset_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/toolset"
)

type roleKey struct{}

func withRole(ctx context.Context, role string) context.Context {
	return context.WithValue(ctx, roleKey{}, role)
}

func isAdmin(ctx context.Context, _ *toolset.Run, _ *toolset.Tool) (bool, error) {
	return ctx.Value(roleKey{}) == "admin", nil
}

func TestFilterEveryTurn(t *testing.T) {
	is := is.New(t)
	ops := newCompSource("Ops", "delete_user", "restart_db")
	src := toolset.Filter(ops, isAdmin)
	turns := []struct {
		role string
		want []string
	}{
		{"admin", []string{"delete_user", "restart_db"}},
		{"user", []string{}},
		{"admin", []string{"delete_user", "restart_db"}},
		{"", []string{}},
	}
	for i, turn := range turns {
		tools, err := src.Tools(withRole(context.Background(), turn.role), &toolset.Run{RunID: "r1"})
		is.NoErr(err)
		is.Equal(compNames(tools), turn.want) // what the role sees this turn
		is.Equal(ops.calls, i+1)              // the source is asked every turn
	}
}

func TestFilterSeesRun(t *testing.T) {
	is := is.New(t)
	readOnlyInPlan := func(_ context.Context, run *toolset.Run, t *toolset.Tool) (bool, error) {
		return run == nil || run.Mode != "plan" || t.ReadOnly, nil
	}
	ops := newCompSource("Ops", "search", "close")
	ops.tools[0].ReadOnly = true
	src := toolset.Filter(ops, readOnlyInPlan)
	tools, err := src.Tools(context.Background(), &toolset.Run{Mode: "plan"})
	is.NoErr(err)
	is.Equal(compNames(tools), []string{"search"})
	tools, err = src.Tools(context.Background(), &toolset.Run{})
	is.NoErr(err)
	is.Equal(compNames(tools), []string{"search", "close"})
}

func TestFilterFailsClosed(t *testing.T) {
	is := is.New(t)
	errNoRole := errors.New("no role in context")
	pred := func(ctx context.Context, _ *toolset.Run, t *toolset.Tool) (bool, error) {
		if t.Name == "restart_db" {
			return true, errNoRole // true is ignored: an error hides the tool
		}
		return true, nil
	}
	type report struct {
		tool string
		err  error
	}
	var reports []report
	src := toolset.Filter(newCompSource("Ops", "delete_user", "restart_db", "status"), pred)
	src.OnError = func(_ context.Context, _ *toolset.Run, t *toolset.Tool, err error) {
		reports = append(reports, report{t.Name, err})
	}
	tools, err := src.Tools(context.Background(), nil)
	is.NoErr(err) // the turn goes on
	is.Equal(compNames(tools), []string{"delete_user", "status"})
	is.Equal(reports, []report{{"restart_db", errNoRole}}) // and the error is reported
}

func TestFilterLogsByDefault(t *testing.T) {
	is := is.New(t)
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(prev)

	pred := func(context.Context, *toolset.Run, *toolset.Tool) (bool, error) {
		return false, errors.New("lookup failed")
	}
	tools, err := toolset.Filter(newCompSource("Ops", "restart_db"), pred).Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(len(tools), 0)
	log := buf.String()
	is.True(strings.Contains(log, "level=WARN"))
	is.True(strings.Contains(log, "tool=restart_db"))
	is.True(strings.Contains(log, `error="lookup failed"`))
	is.True(strings.Contains(log, `source=Filtered(Ops)`))
}

func TestFilterNilPredicateHidesAll(t *testing.T) {
	is := is.New(t)
	tools, err := toolset.Filter(newCompSource("Ops", "a"), nil).Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(len(tools), 0)
}

func TestFilterCompositionOrder(t *testing.T) {
	tests := []struct {
		name string
		// build composes the filter and the prefix around src.
		build func(src toolset.Source, keep toolset.Predicate) toolset.Source
		saw   []string
		want  []string
	}{
		{
			name: "filter outside the prefix sees prefixed names",
			build: func(src toolset.Source, keep toolset.Predicate) toolset.Source {
				return toolset.Filter(toolset.Prefix(src, "db"), keep)
			},
			saw:  []string{"db_query", "db_drop"},
			want: []string{"db_query"},
		},
		{
			name: "filter inside the prefix sees the source's names",
			build: func(src toolset.Source, keep toolset.Predicate) toolset.Source {
				return toolset.Prefix(toolset.Filter(src, keep), "db")
			},
			saw:  []string{"query", "drop"},
			want: []string{}, // "query" is not "db_query"
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var saw []string
			keep := func(_ context.Context, _ *toolset.Run, t *toolset.Tool) (bool, error) {
				saw = append(saw, t.Name)
				return t.Name == "db_query", nil
			}
			tools, err := tt.build(newCompSource("DB", "query", "drop"), keep).Tools(context.Background(), nil)
			is.NoErr(err)
			is.Equal(saw, tt.saw)
			is.Equal(compNames(tools), tt.want)
		})
	}
}

func TestFilterInsideCombine(t *testing.T) {
	is := is.New(t)
	// A filter can resolve a conflict for the turns in which it hides one side.
	src := toolset.Combine(newCompSource("Tickets", "search"), toolset.Filter(newCompSource("Admin", "search"), isAdmin))
	tools, err := src.Tools(withRole(context.Background(), "user"), nil)
	is.NoErr(err)
	is.Equal(compNames(tools), []string{"search"})

	_, err = src.Tools(withRole(context.Background(), "admin"), nil)
	var ce *toolset.ConflictError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Conflicts, []toolset.Conflict{{Name: "search", Sources: []string{"tools[0] Tickets", "tools[1] Filtered(Admin)"}}})
}
