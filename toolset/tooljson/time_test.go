package tooljson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// TestCivilDays checks the day arithmetic against the time package over every
// year RFC 3339 can hold, and at its ends.
func TestCivilDays(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct{ year, month, day int }{
		{0, 1, 1}, {0, 2, 29}, {0, 3, 1}, {1, 1, 1}, {1969, 12, 31}, {1970, 1, 1}, {2000, 2, 29},
		{2026, 11, 30}, {2100, 2, 28}, {2100, 3, 1}, {9999, 12, 31},
	} {
		want := time.Date(tc.year, time.Month(tc.month), tc.day, 0, 0, 0, 0, time.UTC).Unix() / secondsPerDay
		if want < 0 && time.Date(tc.year, time.Month(tc.month), tc.day, 0, 0, 0, 0, time.UTC).Unix()%secondsPerDay != 0 {
			want--
		}
		is.Equal(daysFromCivil(tc.year, tc.month, tc.day), want)
	}
	// Every 7th day from 0000-01-01 to 9999-12-31 goes there and back.
	for days := int64(-719528); days <= 2932896; days += 7 {
		y, m, d := civilFromDays(uint32(days + 719528))
		want := time.Unix(days*secondsPerDay, 0).UTC()
		if y != want.Year() || m != int(want.Month()) || d != want.Day() {
			t.Fatalf("day %d: got %04d-%02d-%02d, want %s", days, y, m, d, want.Format(time.DateOnly))
		}
		if back := daysFromCivil(y, m, d); back != days {
			t.Fatalf("day %d: %04d-%02d-%02d goes back to %d", days, y, m, d, back)
		}
	}
}

// TestParseUTCTime checks that the fast path returns exactly what
// time.Time.UnmarshalJSON returns, representation included, and that it
// declines the forms it leaves to the time package.
func TestParseUTCTime(t *testing.T) {
	is := is.New(t)
	for _, s := range []string{
		"2026-03-01T00:00:00Z", "2026-11-29T22:30:59.5Z", "2026-11-29T22:30:59.123456789Z",
		"2026-11-29T22:30:59.000000001Z", "2026-11-29T22:30:59.0Z", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999Z", "2000-02-29T12:00:00Z", "1969-12-31T23:59:59.9Z", "1900-03-01T00:00:00Z",
	} {
		got, ok := parseUTCTime([]byte(s))
		is.True(ok)
		var want time.Time
		is.NoErr(want.UnmarshalJSON([]byte(`"` + s + `"`)))
		is.True(got == want) // the same instant, location and representation
	}
	for _, s := range []string{
		"", "2026-03-01T00:00:00", "2026-03-01T00:00:00+01:00", "2026-03-01t00:00:00Z", "2026-03-01T00:00:00z",
		"2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
		"2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z",
		"2026-01-01T00:00:00.Z", "2026-01-01T00:00:00,5Z", "2026-01-01T00:00:00.1234567891Z", "2026-01-01T00:00:00.1aZ",
		"20x6-01-01T00:00:00Z", "2026-01-01 00:00:00Z", "2026-1-01T00:00:00Z", "+026-01-01T00:00:00Z",
	} {
		_, ok := parseUTCTime([]byte(s))
		is.True(!ok) // declined
	}
}

// FuzzParseUTCTime checks that whatever the fast path accepts,
// time.Time.UnmarshalJSON accepts with the same result.
func FuzzParseUTCTime(f *testing.F) {
	f.Add("2026-03-01T00:00:00Z")
	f.Add("2026-11-29T22:30:59.123456789Z")
	f.Add("2000-02-29T00:00:00Z")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseUTCTime([]byte(s))
		if !ok {
			return
		}
		var want time.Time
		if err := want.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil {
			t.Fatalf("%q: fast path accepted, UnmarshalJSON says %v", s, err)
		}
		if got != want {
			t.Fatalf("%q: got %#v, UnmarshalJSON %#v", s, got, want)
		}
	})
}

// TestAppendTimeFastPath checks the hand-written RFC 3339 writer against
// json.Marshal across the years it handles, with odd zone offsets and
// fractions, and that TimeOK agrees with json.Marshal at the edges.
func TestAppendTimeFastPath(t *testing.T) {
	zones := []*time.Location{
		time.UTC, time.FixedZone("", 3600), time.FixedZone("", -5*3600-30*60), time.FixedZone("", 30),
		time.FixedZone("", -30), time.FixedZone("", -59), time.FixedZone("", 86399), time.FixedZone("", -86399),
		time.FixedZone("", 86400), time.FixedZone("", -86400),
	}
	nanos := []int64{0, 1, 10, 120_000_000, 999_999_999, 500}
	i := 0
	check := func(tm time.Time) {
		t.Helper()
		want, err := json.Marshal(tm)
		if TimeOK(tm) != (err == nil) {
			t.Fatalf("%v: TimeOK %v, json.Marshal error %v", tm, TimeOK(tm), err)
		}
		if err != nil {
			return
		}
		if got := AppendTime(nil, tm); !bytes.Equal(got, want) {
			t.Fatalf("%v: got %s, json.Marshal %s", tm, got, want)
		}
	}
	for sec := int64(-62167219200 - 2*secondsPerDay); sec < 253402300800+2*secondsPerDay; sec += 3*secondsPerDay + 3607 {
		check(time.Unix(sec, nanos[i%len(nanos)]).In(zones[i%len(zones)]))
		i++
	}
	for _, sec := range []int64{-62167219200, -62167219201, 253402300799, 253402300800} {
		for _, z := range zones {
			check(time.Unix(sec, 0).In(z))
		}
	}
	check(time.Date(2026, 11, 29, 22, 30, 0, 0, time.Local))
}

// TestStringBytes checks that StringBytes reads what String reads, without
// allocating.
func TestStringBytes(t *testing.T) {
	is := is.New(t)
	for _, in := range differentialInputs {
		want, werr := decodeOne([]byte(in), (*Decoder).String)
		got, gerr := decodeOne([]byte(in), func(d *Decoder) string { return string(d.StringBytes()) })
		is.Equal(got, want)
		is.Equal(errText(gerr), errText(werr))
	}
	// The decoder keeps its scratch buffer across Reset, so after the first
	// run escaped text costs nothing either.
	in := []byte(`["open","pend\u0069ng"]`)
	var d Decoder
	allocs := testing.AllocsPerRun(100, func() {
		d.Reset(in)
		for d.Array(); d.Elem(); {
			_ = d.StringBytes()
		}
		d.End()
	})
	is.NoErr(d.Err())
	is.Equal(allocs, 0.0)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDateTimeFormats checks IsDateTime and IsDate against jsonschema/v6's
// "date-time" and "date" formats on edge cases.
func TestDateTimeFormats(t *testing.T) {
	for _, s := range []string{
		"2026-11-29T22:30:00Z", "2026-11-29t22:30:00z", "2026-11-29T22:30:00.5+05:30", "2026-12-31T23:59:60Z",
		"2026-12-31T22:59:60-01:00", "2026-12-31T23:59:60+01:00", "2026-12-31T00:59:60+01:00", "2026-12-31T12:00:60Z",
		"2026-11-29T22:30:00+24:00", "2026-11-29T22:30:00+23:60", "2026-11-29T22:30:00.Z", "2026-11-29T22:30:00,5Z",
		"2026-02-29T00:00:00Z", "2024-02-29T00:00:00Z", "0000-02-29T00:00:00Z", "2026-11-29 22:30:00Z",
		"2026-11-29T22:30:00", "2026-11-29T2:30:00Z", "2026-11-29", "2026-1-29", "2026-13-01", "2026-04-31", "",
		"2026-11-29T22:30:00.123456789123Z", "2026-11-29T22:30:00+0530",
	} {
		if got, want := IsDateTime(s), dateTimeFormat.Validate(s) == nil; got != want {
			t.Errorf("IsDateTime(%q) = %v, jsonschema says %v", s, got, want)
		}
		if got, want := IsDate(s), dateFormat.Validate(s) == nil; got != want {
			t.Errorf("IsDate(%q) = %v, jsonschema says %v", s, got, want)
		}
	}
}

// FuzzDateTimeFormats holds IsDateTime and IsDate to jsonschema/v6, apart
// from its reading of a sign as a digit ("+1:00:00"), which RFC 3339 does not
// allow; and checks that what the time reader accepts both time.Time and the
// format accept.
func FuzzDateTimeFormats(f *testing.F) {
	f.Add("2026-12-31T23:59:60Z")
	f.Add("2026-11-29t22:30:00.5+05:30")
	f.Add("2026-02-29")
	f.Fuzz(func(t *testing.T, s string) {
		signed := strings.ContainsAny(s, "+-") && strings.IndexAny(s, "+-") != 4
		if got, want := IsDateTime(s), dateTimeFormat.Validate(s) == nil; got != want && !(signed && want) {
			t.Fatalf("IsDateTime(%q) = %v, jsonschema says %v", s, got, want)
		}
		if got, want := IsDate(s), dateFormat.Validate(s) == nil; got != want {
			t.Fatalf("IsDate(%q) = %v, jsonschema says %v", s, got, want)
		}
		in, _ := json.Marshal(s)
		d := NewDecoder(in)
		got := d.Time()
		if d.Err() != nil {
			return
		}
		var want time.Time
		if err := want.UnmarshalJSON(in); err != nil || !IsDateTime(s) {
			t.Fatalf("%q: Time accepted, UnmarshalJSON says %v, IsDateTime %v", s, err, IsDateTime(s))
		}
		if !got.Equal(want) {
			t.Fatalf("%q: got %v, want %v", s, got, want)
		}
		if !TimeOK(got) {
			t.Fatalf("%q: accepted a time that cannot be written back", s)
		}
	})
}
