package junit

import (
	"bytes"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/hangar-dev/testresults/testrun"
)

// maxSecondsDigits bounds the integer digits read on the fast path: more
// than testrun.MaxCaseDuration has (604800 seconds) is out of range anyway.
const maxSecondsDigits = 7

// pow10 holds the powers of ten that scale a fraction of fewer than nine
// digits (none included) to nanoseconds.
var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// parseSeconds reads a testcase's time attribute: seconds, as runners write
// them ("0.004", "12", "1.7e-05", and "1,234.56" with thousands separators).
// It reports false for anything else, a negative time (some runners write
// clock-skewed ones), or one beyond testrun.MaxCaseDuration: the case's time
// is then unknown, never zero. A value with only a comma ("1,5") is
// ambiguous between locales and read as unknown too.
func parseSeconds(v []byte) (time.Duration, bool) {
	if n := len(v); n > 0 && (v[0] <= ' ' || v[0] >= utf8.RuneSelf || v[n-1] <= ' ' || v[n-1] >= utf8.RuneSelf) {
		v = bytes.TrimSpace(v)
	}
	if d, ok, done := parseDecimal(v); done {
		return d, ok
	}
	// Exponents and other spellings ParseFloat knows; hex floats, NaN and
	// infinities are not times.
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > testrun.MaxCaseDuration.Seconds() {
		return 0, false
	}
	return time.Duration(math.Round(f * float64(time.Second))), true
}

// parseDecimal is the fast path for digits with an optional fraction (and
// thousands commas before a point). done is false when v is spelled some
// other way and must be read by ParseFloat. It reads v in one pass.
func parseDecimal(v []byte) (d time.Duration, ok, done bool) {
	if len(v) == 0 {
		return 0, false, true
	}
	var secs, nanos int64
	digits, fracDigits := 0, 0
	point, comma := false, false
	for i, c := range v {
		switch {
		case c >= '0' && c <= '9' && point:
			// The first nine digits of the fraction are nanoseconds; the
			// rest is checked but below the resolution.
			if fracDigits < 9 {
				nanos = nanos*10 + int64(c-'0')
			}
			fracDigits++
		case c >= '0' && c <= '9':
			if digits > 0 || c != '0' {
				digits++
			}
			if digits > maxSecondsDigits {
				return 0, false, true
			}
			secs = secs*10 + int64(c-'0')
		case c == '.' && !point:
			point = true
		case c == ',' && !point && i > 0:
			// a thousands separator, only beside a decimal point (below)
			comma = true
		default:
			return 0, false, false
		}
	}
	switch {
	case comma && !point:
		return 0, false, false
	case point && len(v) == 1:
		return 0, false, true // "."
	}
	if fracDigits < 9 {
		nanos *= pow10[9-fracDigits]
	}
	d = time.Duration(secs)*time.Second + time.Duration(nanos)
	if d > testrun.MaxCaseDuration {
		return 0, false, true
	}
	return d, true, true
}
