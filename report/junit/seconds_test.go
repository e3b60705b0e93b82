package junit

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"0.004", 4 * time.Millisecond, true},
		{"12", 12 * time.Second, true},
		{" 1.5 ", 1500 * time.Millisecond, true},
		{".25", 250 * time.Millisecond, true},
		{"3.", 3 * time.Second, true},
		{"0.0000000019", 1, true}, // digits past nanoseconds are dropped
		{"1.7e-05", 17 * time.Microsecond, true},
		{"2E+1", 20 * time.Second, true},
		{"1,234.56", 1234*time.Second + 560*time.Millisecond, true},
		{"000000000012.5", 12500 * time.Millisecond, true},
		{"604800", testrun.MaxCaseDuration, true},
		// Unknown, never zero.
		{"", 0, false},
		{".", 0, false},
		{"604800.000001", 0, false},
		{"99999999", 0, false},
		{"-0.5", 0, false},
		{"-9999.999999999999", 0, false},
		{"1,5", 0, false},
		{",5.0", 0, false},
		{"NaN", 0, false},
		{"Inf", 0, false},
		{"infinity", 0, false},
		{"0x1p-2", 0, false},
		{"1.5s", 0, false},
		{"1e400", 0, false},
		{"1..2", 0, false},
		{strings.Repeat("9", 400), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := parseSeconds([]byte(tt.in))
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzParseSeconds: whatever the attribute holds, a time read is within
// 0..MaxCaseDuration, and a plain decimal reads as ParseFloat reads it (to
// the nanosecond).
func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"0.004", "1,234.56", "1.7e-05", "-1", "NaN", "604800", "9.999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseSeconds([]byte(s))
		if !ok {
			require.Zero(t, d)
			return
		}
		require.GreaterOrEqual(t, d, time.Duration(0))
		require.LessOrEqual(t, d, testrun.MaxCaseDuration)
		v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(s), ",", ""), 64)
		require.NoError(t, err, "read %q as %s, which ParseFloat refuses", s, d)
		require.InDelta(t, v, d.Seconds(), 2e-9+v*1e-12, "read %q as %s (digits past nanoseconds are dropped)", s, d)
	})
}
