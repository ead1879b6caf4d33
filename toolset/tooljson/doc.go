// Package tooljson reads and writes the JSON of tool calls for generated code.
//
// The typeshift generator emits, for each tool's input struct, a decoder that
// reads the model's JSON arguments in a single pass and checks required
// properties, types and constraints as it goes; and, for each result type, an
// encoder. Both are built from the small pieces here, so the call path uses
// neither reflection nor encoding/json. People rarely call this package
// themselves.
//
// # Decoding
//
// A [Decoder] reads one value in the order the caller asks for its parts. The
// first error sticks: every later call does nothing, and [Decoder.Err]
// returns an [*Error] whose message names the JSON path and says what to fix,
// so it can go back to the model as it is. A generated decoder looks like
// this:
//
//	func decodeSearchArgs(data []byte, x *SearchArgs) error {
//		d := tooljson.NewDecoder(data)
//		var seen uint8
//		if d.Object() {
//			for {
//				key, ok := d.Field()
//				if !ok {
//					break
//				}
//				switch string(key) {
//				case "query":
//					x.Query = d.String()
//					seen |= 1
//				case "limit":
//					if !d.Null() {
//						x.Limit = int(d.Int(64))
//						if x.Limit > 100 {
//							d.Failf("must be at most 100, got %d", x.Limit)
//						}
//					}
//				default:
//					d.Unknown(key, "query, limit")
//				}
//			}
//			if seen&1 == 0 {
//				d.Missing("query")
//			}
//		}
//		d.End()
//		return d.Err()
//	}
//
// Messages read, for example:
//
//	"limit" must be at most 100, got 500
//	"filter.tags[2]" must be a string, got number
//	missing required property "query"
//	unknown property "qeury"; allowed: query, limit
//	arguments must be an object, got string
//	invalid JSON at offset 17: unexpected end of input
//
// The typed readers ([Decoder.String], [Decoder.Int], [Decoder.Float],
// [Decoder.Bool], [Decoder.Time], ...) accept the same input as json.Unmarshal
// into the same Go type and produce the same value, with these exceptions:
// they reject null, so that the model learns a required value is missing
// (for optional fields generated code calls [Decoder.Null] first, which is
// what encoding/json does with null: it leaves the field alone);
// [Decoder.Time] takes only the RFC 3339 form that JSON Schema's date-time
// format accepts too; [Decoder.Number] takes a number, not a string holding
// one. Generated code also refuses a property given twice
// ([Decoder.Duplicate]), settles float bounds on the literal as written
// ([Decoder.CompareNumber]) and checks the date-time and date formats of
// strings ([IsDateTime], [IsDate]).
//
// The decoder allocates only for what it returns: a string without escapes
// costs one allocation, an empty one none, and errors allocate only when they
// happen. [Decoder.StringBytes] returns a string's text without copying it,
// so that generated code can match an enumerated value and keep the type's
// constant instead of a copy. Date-times in UTC ("...Z") are read without
// the time package's general parser, and [AppendTime] writes the common
// years and zones by hand, with the same results.
//
// # Encoding
//
// The Append functions ([AppendString], [AppendInt], [AppendFloat],
// [AppendTime], [AppendRaw], ...) write exactly the bytes json.Marshal
// writes for the same Go value, HTML escaping included, and allocate only
// when the buffer grows. Values json.Marshal refuses (NaN, infinities, years
// beyond 9999, invalid raw JSON) are checked with [FloatOK], [TimeOK] and
// [RawOK]; the generated code turns a failed check into an error.
//
// [Decoder.Fallback] and [AppendFallback] use encoding/json for the rare
// types the generator does not handle itself.
//
// # Limits
//
//   - Objects and arrays nest at most [MaxDepth] (64) levels, counting the
//     top-level value; deeper input is rejected with "nested too deeply".
//     [Decoder.Skip] and [Decoder.Raw] keep their own fixed-size stack and
//     never recurse, so no input can exhaust the Go stack.
//   - Input is at most [MaxInput] bytes (2 GiB - 1).
//   - No input makes the decoder panic; every problem is an [*Error].
//   - Messages quote at most 40 bytes of a bad literal.
//   - Bytes accepts only a base64 string, not the array of numbers
//     encoding/json also takes for a []byte.
package tooljson
