package tooljson_test

import (
	"fmt"

	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

type closeTicketArgs struct {
	ID     int64
	Reason string
}

// decodeCloseTicketArgs is written the way the generator writes decoders.
func decodeCloseTicketArgs(data []byte, x *closeTicketArgs) error {
	d := tooljson.NewDecoder(data)
	var seen uint8
	if d.Object() {
		for {
			key, ok := d.Field()
			if !ok {
				break
			}
			switch string(key) {
			case "id":
				x.ID = d.Int(64)
				if x.ID < 1 {
					d.Failf("must be at least 1, got %d", x.ID)
				}
				seen |= 1
			case "reason":
				x.Reason = d.String()
			default:
				d.Unknown(key, "id, reason")
			}
		}
		if seen&1 == 0 {
			d.Missing("id")
		}
	}
	d.End()
	return d.Err()
}

func Example() {
	for _, in := range []string{
		`{"id": 4711, "reason": "fixed <for good>"}`,
		`{"id": "4711"}`,
		`{"id": 0}`,
		`{"reason": "done"}`,
		`{"id": 1, "resolution": "done"}`,
		`{"id": 1,`,
	} {
		var x closeTicketArgs
		if err := decodeCloseTicketArgs([]byte(in), &x); err != nil {
			fmt.Println("error:", err)
			continue
		}
		// Encode a result as json.Marshal would.
		b := []byte(`{"closed":`)
		b = tooljson.AppendInt(b, x.ID)
		b = append(b, `,"reason":`...)
		b = tooljson.AppendString(b, x.Reason)
		b = append(b, '}')
		fmt.Println(string(b))
	}
	// Output:
	// {"closed":4711,"reason":"fixed \u003cfor good\u003e"}
	// error: "id" must be an integer, got string
	// error: "id" must be at least 1, got 0
	// error: missing required property "id"
	// error: unknown property "resolution"; allowed: id, reason
	// error: invalid JSON at offset 9: unexpected end of input
}
