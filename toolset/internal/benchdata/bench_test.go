package benchdata_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/internal/benchdata"
)

// benchArgs are typical arguments of the search tool: every property set.
const benchArgs = `{"query":"printer toner","limit":10,"include_closed":true,` +
	`"filter":{"statuses":["open","pending"],"assignee":"kim"},` +
	`"since":"2026-03-01T00:00:00Z","tags":["hardware","printer"]}`

func fixtureTools(tb testing.TB, f *benchdata.Fixtures) []*toolset.Tool {
	tb.Helper()
	tools, err := f.Tools(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return tools
}

func searchTool(tb testing.TB, s *benchdata.Search) *toolset.Tool {
	tb.Helper()
	tools, err := s.Tools(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	if len(tools) != 1 {
		tb.Fatalf("got %d tools, want 1", len(tools))
	}
	return tools[0]
}

// TestPathsAgree checks that the three benchmarked paths return the same bytes, so that they measure the same
// work.
func TestPathsAgree(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := &benchdata.Search{Results: benchdata.SampleResults()}
	tool := searchTool(t, s)
	v, err := newValidated(tool.Schema)
	is.NoErr(err)

	for _, args := range []string{benchArgs, `{"query":"x"}`, `{"query":"x","limit":2}`} {
		gen, err := tool.Invoke(ctx, &toolset.Call{Arguments: json.RawMessage(args)})
		is.NoErr(err)
		hand, err := invokeByHand(ctx, s, []byte(args))
		is.NoErr(err)
		val, err := v.invoke(ctx, s, []byte(args))
		is.NoErr(err)
		limit, err := invokeLimit(ctx, s, []byte(args))
		is.NoErr(err)
		is.Equal(string(gen), string(hand))
		is.Equal(string(gen), string(val))
		is.Equal(string(gen), string(limit))
	}
	// The 64 KB arguments decode to the same value on the generated path and the hand-written one.
	var gotBig, limitBig benchdata.SearchArgs
	is.NoErr(decodeLimit(bigArgs, &limitBig))
	f := &benchdata.Fixtures{}
	for _, ft := range fixtureTools(t, f) {
		if ft.Name == "record_search" {
			_, err := ft.Invoke(ctx, &toolset.Call{Arguments: bigArgs})
			is.NoErr(err)
			gotBig = f.LastSearch
		}
	}
	is.Equal(len(gotBig.Tags), len(limitBig.Tags))
	is.True(len(bigArgs) >= 64<<10-64 && len(bigArgs) <= 64<<10)
	for _, args := range []string{`{"limit":10}`, `{"query":"x","limit":101}`, `{"query":"x","filter":{"statuses":["done"]}}`,
		`{"query":"x","extra":1}`, `{"query":"x","since":"yesterday"}`} {
		_, err := tool.Invoke(ctx, &toolset.Call{Arguments: json.RawMessage(args)})
		is.True(err != nil)
		_, err = invokeByHand(ctx, s, []byte(args))
		is.True(err != nil)
		_, err = v.invoke(ctx, s, []byte(args))
		is.True(err != nil)
		_, err = invokeLimit(ctx, s, []byte(args))
		is.True(err != nil)
	}
}

// BenchmarkInvoke measures one call of a realistic tool: JSON arguments in, a typed call, JSON result out.
func BenchmarkInvoke(b *testing.B) {
	ctx := context.Background()
	s := &benchdata.Search{Results: benchdata.SampleResults()}
	tool := searchTool(b, s)
	args := []byte(benchArgs)

	b.Run("generated", func(b *testing.B) {
		call := &toolset.Call{ID: "call-1", Name: tool.Name, Arguments: args}
		b.ReportAllocs()
		b.SetBytes(int64(len(args)))
		for b.Loop() {
			if _, err := tool.Invoke(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("physical_limit", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(args)))
		for b.Loop() {
			if _, err := invokeLimit(ctx, s, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("generated_64KB", func(b *testing.B) {
		call := &toolset.Call{ID: "call-1", Name: tool.Name, Arguments: bigArgs}
		b.ReportAllocs()
		b.SetBytes(int64(len(bigArgs)))
		for b.Loop() {
			if _, err := tool.Invoke(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("physical_limit_64KB", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(bigArgs)))
		for b.Loop() {
			if _, err := invokeLimit(ctx, s, bigArgs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handwritten_encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(args)))
		for b.Loop() {
			if _, err := invokeByHand(ctx, s, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonschema_then_encoding_json", func(b *testing.B) {
		v, err := newValidated(tool.Schema)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(args)))
		for b.Loop() {
			if _, err := v.invoke(ctx, s, args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTools measures the first Tools call on a fresh toolset: running Declare and building the tools.
// The schemas are literals in the generated code, so this does no schema work at all.
func BenchmarkTools(b *testing.B) {
	ctx := context.Background()
	results := benchdata.SampleResults()
	b.ReportAllocs()
	for b.Loop() {
		s := &benchdata.Search{Results: results}
		if _, err := s.Tools(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileSchema measures what a runtime that compiles the same schema at registration would pay, for
// comparison with BenchmarkTools.
func BenchmarkCompileSchema(b *testing.B) {
	tool := searchTool(b, &benchdata.Search{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := newValidated(tool.Schema); err != nil {
			b.Fatal(err)
		}
	}
}

// TestToolsBuildIsCheap bounds what building a fresh toolset's tools allocates. The schemas are literals, so
// the cost is a few small structs per tool; inferring or compiling a schema at this point would take hundreds
// of allocations (see BenchmarkCompileSchema).
func TestToolsBuildIsCheap(t *testing.T) {
	ctx := context.Background()
	results := benchdata.SampleResults()
	allocs := testing.AllocsPerRun(100, func() {
		s := &benchdata.Search{Results: results}
		if _, err := s.Tools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 16 {
		t.Errorf("building one tool allocates %.0f times, want at most 16", allocs)
	}
}
