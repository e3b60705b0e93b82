package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shlexTable is what testdata/shlex/gen.py wrote from Python's shlex.split.
type shlexTable struct {
	Cases []struct {
		In    string   `json:"in"`
		Words []string `json:"words"`
		Error string   `json:"error"`
	} `json:"cases"`
}

func readShlexTable(t testing.TB) shlexTable {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "shlex", "shlex.json"))
	require.NoError(t, err)
	var tab shlexTable
	require.NoError(t, json.Unmarshal(b, &tab))
	require.NotEmpty(t, tab.Cases)
	return tab
}

// TestSplitArgsMatchesPython checks splitArgs against every entry of the
// table Python's shlex.split made: the same words, or an error where Python
// raises one.
func TestSplitArgsMatchesPython(t *testing.T) {
	for _, c := range readShlexTable(t).Cases {
		got, err := splitArgs(c.In)
		if c.Error != "" {
			assert.Error(t, err, "%q: Python says %s", c.In, c.Error)
			continue
		}
		if assert.NoError(t, err, "%q", c.In) {
			want := c.Words
			if len(want) == 0 {
				want = nil
			}
			assert.Equal(t, want, got, "%q", c.In)
		}
	}
}

// FuzzSplitArgs checks what holds for any input: no panic; a split without
// error quotes back (quoteArgs) to the same words; an input without quotes
// or backslashes splits at white space only.
func FuzzSplitArgs(f *testing.F) {
	for _, c := range readShlexTable(f).Cases {
		f.Add(c.In)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitArgs(s)
		if err != nil {
			return
		}
		back, err := splitArgs(quoteArgs(words))
		require.NoError(t, err)
		if len(words) == 0 {
			assert.Empty(t, back)
		} else {
			assert.Equal(t, words, back)
		}
		if !strings.ContainsAny(s, `"'\`) {
			fields := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \t\r\n", r) })
			if len(fields) == 0 {
				assert.Empty(t, words)
			} else {
				assert.Equal(t, fields, words)
			}
		}
	})
}
