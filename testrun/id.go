package testrun

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"time"
)

// MaxIDLength is the longest run id NewID gives and ValidID accepts.
const MaxIDLength = 128

// DeriveID derives a run id from the reports a run read: the first 32 hex
// digits of a SHA-256 over their sorted SHA-256 digests (for a report not
// read whole, its path and reason), so the same reports always give the same
// id.
func DeriveID(reports []ReportInfo) string {
	keys := make([]string, 0, len(reports))
	for _, r := range reports {
		if r.SHA256 != "" {
			keys = append(keys, "sha256:"+r.SHA256)
		} else {
			keys = append(keys, "path:"+r.Path+"\x00"+r.Error)
		}
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// NewID returns a fresh id for a run about to start, before it has any
// report: the start time (UTC, to the second) and 12 hex digits read from
// random, such as "20260102T030405Z-1a2b3c4d5e6f". Ids sort by start time
// and are safe as folder names.
func NewID(start time.Time, random io.Reader) (string, error) {
	var b [6]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return "", fmt.Errorf("testrun: run id: %w", err)
	}
	return start.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:]), nil
}

// ValidID reports whether id can name a run and its report folder: 1 to
// MaxIDLength characters from A-Z, a-z, 0-9, '.', '_' and '-', not starting
// with '.' or '-'.
func ValidID(id string) bool {
	if id == "" || len(id) > MaxIDLength || id[0] == '.' || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}
