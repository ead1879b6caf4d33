package tickets_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/internal/schema/schematest"
	"github.com/typeshift-go/typeshift/toolset"
)

// FuzzSearchTickets feeds arbitrary arguments to the generated decoder of search_tickets. It calls Invoke, not
// Call, so that a panic fails the fuzzer instead of being recovered. Every input either fails with a message
// for the model or succeeds with a JSON array; it succeeds exactly when the schema and encoding/json both
// accept it.
func FuzzSearchTickets(f *testing.F) {
	for _, seed := range []string{
		`{"query":"printer"}`, `{"query":"printer","status":"open"}`, `{"query":"","status":null}`,
		`{}`, `{"query":5}`, `{"query":"x","status":"done"}`, `{"query":"\u00e9\ud83d\ude00"}`,
		`{"query":"x","query":"y"}`, `[]`, `null`, `{"query":"x"} trailing`, `{"query":"` + "\xff" + `"}`,
		`{"query":"x","extra":{"a":[1,2,{"b":null}]}}`, `{"query"`, ``,
	} {
		f.Add([]byte(seed))
	}
	search := tools(f, tickets.NewMemoryClient(tickets.SampleTickets()...))["search_tickets"]
	s, err := schematest.Compile(search.Schema)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		res, err := search.Invoke(context.Background(), &toolset.Call{Name: search.Name, Arguments: args})
		// What the schema and encoding/json accept together, the generated decoder accepts too.
		var in tickets.SearchInput
		refErr := schematest.Validate(s, args)
		if refErr == nil {
			refErr = json.Unmarshal(args, &in)
		}
		if refErr == nil && schematest.HasDuplicateKeys(args) {
			refErr = errors.New("a key given twice is refused") // by design
		}
		if refErr == nil && err != nil {
			t.Fatalf("%q: schema and encoding/json accept it, the generated decoder says: %v", args, err)
		}
		if err != nil {
			var argErr *toolset.ArgumentError
			if !errors.As(err, &argErr) {
				t.Fatalf("%q: an error that is not about the arguments: %v", args, err)
			}
			if argErr.Message == "" {
				t.Fatalf("%q: an empty message", args)
			}
			return
		}
		if !json.Valid(res) || res[0] != '[' {
			t.Fatalf("%q: result %q is not a JSON array", args, res)
		}
		if err := schematest.Validate(s, args); err != nil {
			t.Fatalf("%q: accepted, but the schema rejects it: %v", args, schematest.Short(err))
		}
	})
}
