package storage_test

import (
	"errors"
	"fmt"

	"github.com/typeshift-go/typeshift/storage"
)

// CheckJSON says whether every store holds data, and if not, where and why;
// SanitizeJSON mends what it can, the same way each time.
func ExampleCheckJSON() {
	for _, data := range []string{
		`{"text":"\ud83d\ude00 fine"}`,
		`{"text":"a\u0000b"}`,
		`{"text":"\ud800"}`,
		`{"n":1e200000}`,
	} {
		err := storage.CheckJSON([]byte(data))
		var je *storage.JSONError
		if !errors.As(err, &je) {
			fmt.Printf("%s: held\n", data)
			continue
		}
		fmt.Printf("%s: %v; sanitised: %s\n", data, err, storage.SanitizeJSON([]byte(data)))
	}
	// Output:
	// {"text":"\ud83d\ude00 fine"}: held
	// {"text":"a\u0000b"}: a \u0000 escape at offset 10; sanitised: {"text":"a\ufffdb"}
	// {"text":"\ud800"}: a \u escape of a high surrogate without a low one after it at offset 9; sanitised: {"text":"\ufffd"}
	// {"n":1e200000}: a number out of the range a store holds at offset 5; sanitised: {"n":"1e200000"}
}
