package tooljson

import "time"

// The time package's own RFC 3339 code is general: decoding a UTC time goes
// through time.Date and the zone lookup of the local time zone, and checking
// and writing a time formats it twice. The fast paths here handle the common
// forms with plain arithmetic and leave everything else to the time package,
// so the results stay exactly those of time.Time.UnmarshalJSON and
// time.Time.MarshalJSON (the differential tests and FuzzAppendTime hold them
// to that).

const (
	secondsPerDay = 86400
	// daysTo1970 is the number of days from 0000-03-01, the start of the
	// civil calendar used below (whose years begin in March), to 1970-01-01.
	daysTo1970 = 719468
)

// daysFromCivil returns the number of days from 1970-01-01 to the given
// proleptic Gregorian date; the date must be valid.
func daysFromCivil(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400 // [0, 399]
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1    // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return era*146097 + doe - daysTo1970
}

// civilFromDays is the inverse of daysFromCivil for the days of years 0 to
// 9999, which it counts from 0000-01-01 (day 0) rather than from 1970; it
// uses unsigned 32-bit arithmetic, which makes its divisions cheap.
func civilFromDays(days uint32) (year, month, day int) {
	// Counted from -0400-03-01 (0000-03-01 is day 60) so that nothing is
	// negative; years begin in March, so that the leap day ends them.
	z := days + 146097 - 60
	era := z / 146097
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11]
	day = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		month = int(mp + 3)
	} else {
		month = int(mp - 9)
	}
	year = int(yoe+era*400) - 400
	if month <= 2 {
		year++
	}
	return year, month, day
}

// daysIn returns the number of days of a month.
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// digits2 reads two ASCII digits, -1 if they are not digits.
func digits2(a, b byte) int {
	if a-'0' > 9 || b-'0' > 9 {
		return -1
	}
	return int(a-'0')*10 + int(b-'0')
}

// parseUTCTime parses s, the content of a JSON string, when it has the form
// 2006-01-02T15:04:05Z with an optional fraction of one to nine digits, and
// reports whether it did. Where it returns true, time.Time.UnmarshalJSON
// returns the same time (UTC, with the same representation); any other
// form, valid or not, is left to it.
func parseUTCTime(s []byte) (time.Time, bool) {
	if len(s) < len("2006-01-02T15:04:05Z") || s[len(s)-1] != 'Z' {
		return time.Time{}, false
	}
	_ = s[19]
	if s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	hi, lo := digits2(s[0], s[1]), digits2(s[2], s[3])
	month := digits2(s[5], s[6])
	day := digits2(s[8], s[9])
	hour := digits2(s[11], s[12])
	minute := digits2(s[14], s[15])
	sec := digits2(s[17], s[18])
	if hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	year := hi*100 + lo
	if day > daysIn(year, month) {
		return time.Time{}, false
	}
	nsec := 0
	if frac := s[19 : len(s)-1]; len(frac) > 0 {
		// A point and one to nine digits; more digits are truncated by the
		// time package, which handles them.
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		scale := 1_000_000_000
		for _, c := range frac[1:] {
			if c-'0' > 9 {
				return time.Time{}, false
			}
			scale /= 10
			nsec += int(c-'0') * scale
		}
	}
	unix := daysFromCivil(year, month, day)*secondsPerDay + int64(hour*3600+minute*60+sec)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

const (
	// minRFC3339 and maxRFC3339 are the first and last second, as Unix
	// times, of the years RFC 3339 can hold: 0000-01-01T00:00:00 and
	// 9999-12-31T23:59:59.
	minRFC3339 = -62167219200
	maxRFC3339 = 253402300799
)

// rfc3339Local returns what RFC 3339 writes of t as days since 0000-01-01
// and seconds into the day, both of its wall clock in its zone, and the
// zone's offset in seconds. ok is false when t cannot be written as RFC 3339
// (a year outside [0, 9999], or a zone offset of a day or more), which the
// time package then reports.
func rfc3339Local(t time.Time) (days uint32, secOfDay, offset int, ok bool) {
	// Most times are in UTC, whose offset needs no zone lookup.
	if t.Location() != time.UTC {
		_, offset = t.Zone()
	}
	if offset <= -secondsPerDay || offset >= secondsPerDay {
		return 0, 0, 0, false
	}
	local := t.Unix() + int64(offset)
	if local < minRFC3339 || local > maxRFC3339 {
		return 0, 0, 0, false
	}
	u := uint64(local - minRFC3339)
	return uint32(u / secondsPerDay), int(u % secondsPerDay), offset, true
}

// append2 appends v, in [0, 99], as two digits.
func append2(b []byte, v int) []byte {
	return append(b, byte('0'+v/10), byte('0'+v%10))
}

// append4 appends v, in [0, 9999], as four digits.
func append4(b []byte, v int) []byte {
	return append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

// appendRFC3339 appends t as RFC 3339 with nanoseconds as needed, unquoted,
// as time.Time.AppendText does, and reports whether it could; b is returned
// unchanged when it could not.
func appendRFC3339(b []byte, t time.Time) ([]byte, bool) {
	days, secOfDay, offset, ok := rfc3339Local(t)
	if !ok {
		return b, false
	}
	year, month, day := civilFromDays(days)
	b = append4(b, year)
	b = append(b, '-')
	b = append2(b, month)
	b = append(b, '-')
	b = append2(b, day)
	b = append(b, 'T')
	b = append2(b, secOfDay/3600)
	b = append(b, ':')
	b = append2(b, secOfDay/60%60)
	b = append(b, ':')
	b = append2(b, secOfDay%60)
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	if offset == 0 {
		return append(b, 'Z'), true
	}
	// As the time package does: the offset in whole minutes, truncated
	// towards zero, its sign taken after truncating.
	zone := offset / 60
	if zone < 0 {
		b = append(b, '-')
		zone = -zone
	} else {
		b = append(b, '+')
	}
	b = append2(b, zone/60)
	b = append(b, ':')
	return append2(b, zone%60), true
}

// rfc3339Form reports whether s is a date-time in the one form of RFC 3339
// that time.Time.UnmarshalJSON and JSON Schema's "date-time" format both
// accept: 2006-01-02T15:04:05, an optional fraction of one or more digits,
// then Z or an offset such as +01:00, with every field in range (a second of
// 60, a lowercase t or z, an offset of 24 hours or more and the lax forms
// the time package's fallback parser also takes, such as a one-digit hour
// or a comma before the fraction, are refused). Every time of this form can
// be written back as it was read.
func rfc3339Form(s []byte) bool {
	if len(s) < len("2006-01-02T15:04:05Z") {
		return false
	}
	if s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return false
	}
	hi, lo := digits2(s[0], s[1]), digits2(s[2], s[3])
	month, day := digits2(s[5], s[6]), digits2(s[8], s[9])
	hour, minute, sec := digits2(s[11], s[12]), digits2(s[14], s[15]), digits2(s[17], s[18])
	if hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(hi*100+lo, month) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return false
	}
	rest := s[19:]
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	return validZone(rest, 'Z')
}

// validZone reports whether s is "Z" (or lower, when lower is 'z') or an
// offset ±hh:mm with hh at most 23 and mm at most 59.
func validZone(s []byte, lower byte) bool {
	if len(s) == 1 {
		return s[0] == 'Z' || s[0] == lower
	}
	if len(s) != len("+07:00") || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return false
	}
	h, m := digits2(s[1], s[2]), digits2(s[4], s[5])
	return h >= 0 && h <= 23 && m >= 0 && m <= 59
}

// IsDateTime reports whether s is a date-time as RFC 3339 (section 5.6)
// defines it and JSON Schema's "date-time" format checks it: the separators
// t and z may be lowercase, and a leap second (:60) is allowed at 23:59 UTC.
// Generated code checks string fields tagged format=date-time with it.
func IsDateTime(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || (s[10] != 'T' && s[10] != 't') {
		return false
	}
	return IsDate(s[:10]) && isTimeOfDay(s[11:])
}

// IsDate reports whether s is a full-date of RFC 3339, such as 2006-01-02,
// naming a day that exists, as JSON Schema's "date" format checks it.
// Generated code checks string fields tagged format=date with it.
func IsDate(s string) bool {
	if len(s) != len("2006-01-02") || s[4] != '-' || s[7] != '-' {
		return false
	}
	hi, lo := digits2(s[0], s[1]), digits2(s[2], s[3])
	month, day := digits2(s[5], s[6]), digits2(s[8], s[9])
	return hi >= 0 && lo >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(hi*100+lo, month)
}

// isTimeOfDay reports whether s is a full-time of RFC 3339: hh:mm:ss, an
// optional fraction, and a zone; a second of 60 only where the time is
// 23:59 in UTC.
func isTimeOfDay(s string) bool {
	if len(s) < len("15:04:05Z") || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, m, sec := digits2(s[0], s[1]), digits2(s[3], s[4]), digits2(s[6], s[7])
	if h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60 {
		return false
	}
	rest := s[8:]
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	if !validZone([]byte(rest), 'z') {
		return false
	}
	if sec == 60 {
		// The leap second is the last of the day in UTC.
		utc := h*60 + m
		if len(rest) == 6 {
			off := (int(rest[1]-'0')*10+int(rest[2]-'0'))*60 + int(rest[4]-'0')*10 + int(rest[5]-'0')
			if rest[0] == '+' {
				off = -off
			}
			utc = ((utc+off)%(24*60) + 24*60) % (24 * 60)
		}
		return utc == 23*60+59
	}
	return true
}
