// Package cursor encodes the position of a conversation in a List, and the
// random tokens of claims, alike for every store of the module.
package cursor

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/typeshift-go/typeshift/storage"
)

// Encode returns the cursor that continues a listing after the conversation
// id updated at t.
func Encode(t time.Time, id string) string {
	return strconv.FormatInt(t.UnixMicro(), 10) + ":" + id
}

// Decode reads a cursor made by Encode.
func Decode(s string) (time.Time, string, error) {
	micros, id, ok := strings.Cut(s, ":")
	n, err := strconv.ParseInt(micros, 10, 64)
	// The id and the time must be ones a store holds: a cursor comes from a
	// client, and Postgres refuses text with NUL and times before 4713 BC.
	if !ok || err != nil || storage.CheckIDs(id) != nil || n < minMicros {
		return time.Time{}, "", fmt.Errorf("storage: list cursor %q: %w", s, storage.ErrInvalid)
	}
	return time.UnixMicro(n).UTC(), id, nil
}

// minMicros is the earliest time Postgres's timestamptz holds, 4713-11-24 BC,
// in microseconds since 1970; the latest lies beyond what an int64 of
// microseconds reaches.
const minMicros = -210866803200000000

// Token returns a new random claim token.
func Token() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
