package testrun

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShadowLog: each record is one JSON line appended to the log; a raw
// result that is not UTF-8 is kept as base64, and <, > and & stay readable.
func TestShadowLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "shadow.log")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	v := ToolVerdict{Reasons: []string{"ok is <false>"}}
	require.NoError(t, AppendShadow(log, NewShadowRecord(at, "r.json", "j.xml", []byte(`{"ok":false}`), v)))
	require.NoError(t, AppendShadow(log, NewShadowRecord(at, "-", "j.xml", []byte{0xff, 0xfe}, ToolVerdict{Accepted: true})))

	f, err := os.Open(log)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		lines = append(lines, sc.Text())
	}
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"reasons":["ok is <false>"]`)
	var first, second ShadowRecord
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &second))
	assert.Equal(t, at.UTC(), first.Time)
	assert.Equal(t, "r.json", first.Result)
	assert.False(t, first.Accepted)
	require.NotNil(t, first.Raw)
	assert.Equal(t, `{"ok":false}`, *first.Raw)
	assert.Nil(t, first.RawBase64)
	assert.True(t, second.Accepted)
	assert.Nil(t, second.Raw)
	require.NotNil(t, second.RawBase64)
	assert.Equal(t, "//4=", *second.RawBase64)
	fi, err := os.Stat(log)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

// TestReadToolResult: a file or stdin, read up to one byte past the limit.
func TestReadToolResult(t *testing.T) {
	big := strings.Repeat("x", MaxToolResultBytes+10)
	b, err := ReadToolResult("-", strings.NewReader(big))
	require.NoError(t, err)
	assert.Len(t, b, MaxToolResultBytes+1)
	p := filepath.Join(t.TempDir(), "r.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"ok":true}`), 0o644))
	b, err = ReadToolResult(p, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"ok":true}`, string(b))
	_, err = ReadToolResult(filepath.Join(t.TempDir(), "none"), nil)
	assert.True(t, os.IsNotExist(err), "%v", err)
}
