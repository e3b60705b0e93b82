package attest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCommitIDs: a full id is 40 hex digits; a SHA given on the command
// line is 4 to 64, either case.
func TestCommitIDs(t *testing.T) {
	full := strings.Repeat("aB3", 13) + "f"
	for _, tc := range []struct {
		s       string
		sha, id bool
	}{
		{full, true, true},
		{"abcd", true, false},
		{"abc", false, false},
		{strings.Repeat("0", 64), true, false},
		{strings.Repeat("0", 65), false, false},
		{"main", false, false},
		{strings.Repeat("g", 40), false, false},
		{"", false, false},
	} {
		assert.Equal(t, tc.sha, IsCommitSHA(tc.s), "IsCommitSHA(%q)", tc.s)
		assert.Equal(t, tc.id, IsCommitID(tc.s), "IsCommitID(%q)", tc.s)
	}
}
