package hits

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCount(t *testing.T) {
	tests := []struct {
		in      string
		hit, ok bool
	}{
		{"0", false, true},
		{"000", false, true},
		{"1", true, true},
		{"0007", true, true},
		{"18446744073709551616000", true, true}, // past 2^64: not parsed
		{"", false, false},
		{" 1", false, false}, // space is the caller's to trim
		{"-1", false, false},
		{"1.0", false, false},
		{"1e3", false, false},
		{"١", false, false}, // a digit of another script
	}
	for _, tt := range tests {
		hit, ok := Count([]byte(tt.in))
		assert.Equal(t, tt.hit, hit, "%q", tt.in)
		assert.Equal(t, tt.ok, ok, "%q", tt.in)
	}
}
