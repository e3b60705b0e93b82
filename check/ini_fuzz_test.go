package check

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// iniTable is what testdata/shlex/gen.py wrote from iniconfig, the parser
// pytest reads INI files with.
type iniTable struct {
	Cases []struct {
		In       string `json:"in"`
		Error    string `json:"error"`
		Sections []struct {
			Name    string      `json:"name"`
			Entries [][2]string `json:"entries"`
		} `json:"sections"`
	} `json:"cases"`
}

func readINITable(t testing.TB) iniTable {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "shlex", "ini.json"))
	require.NoError(t, err)
	var tab iniTable
	require.NoError(t, json.Unmarshal(b, &tab))
	require.NotEmpty(t, tab.Cases)
	return tab
}

// TestParseINIMatchesIniconfig checks parseINI against every entry of the
// table iniconfig made: the same sections and entries in the same order,
// or an error where iniconfig raises one.
func TestParseINIMatchesIniconfig(t *testing.T) {
	for _, c := range readINITable(t).Cases {
		got, err := parseINI([]byte(c.In))
		if c.Error != "" {
			assert.Error(t, err, "%q: iniconfig says %s", c.In, c.Error)
			continue
		}
		if !assert.NoError(t, err, "%q", c.In) {
			continue
		}
		var want []iniSectionEntries
		for _, s := range c.Sections {
			sec := iniSectionEntries{name: s.Name}
			for _, e := range s.Entries {
				sec.entries = append(sec.entries, iniEntry{e[0], e[1]})
			}
			want = append(want, sec)
		}
		assert.Equal(t, want, got, "%q", c.In)
	}
}

// FuzzParseINI checks what holds for any input: no panic; a file read
// without error has named, distinct sections whose keys are distinct,
// stripped and free of line ends, and whose values hold no line end but
// the continuation's \n; and writing the result back as INI reads it back
// the same.
func FuzzParseINI(f *testing.F) {
	for _, c := range readINITable(f).Cases {
		f.Add([]byte(c.In))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sections, err := parseINI(b)
		if err != nil {
			return
		}
		require.True(t, utf8.Valid(b))
		names := map[string]bool{}
		var out strings.Builder
		roundTrips := true
		for _, s := range sections {
			require.NotEmpty(t, s.name)
			require.False(t, names[s.name], "section %q twice", s.name)
			names[s.name] = true
			out.WriteString("[" + s.name + "]\n")
			keys := map[string]bool{}
			for _, e := range s.entries {
				require.False(t, keys[e.key], "key %q twice", e.key)
				keys[e.key] = true
				require.Equal(t, strings.TrimFunc(e.key, pySpace), e.key)
				for _, line := range strings.Split(e.value, "\n") {
					require.Equal(t, strings.TrimFunc(line, pySpace), line, "value lines are stripped")
					require.Len(t, pySplitLines(line+"x"), 1, "no line end inside a value line")
				}
				if strings.ContainsAny(s.name, "#;]") || strings.ContainsAny(e.key, "=:#;[") || e.key == "" ||
					strings.Contains(e.value, "\n\n") || strings.HasPrefix(e.value, "\n") {
					roundTrips = false
				}
				out.WriteString(e.key + " = " + strings.ReplaceAll(e.value, "\n", "\n  ") + "\n")
			}
		}
		if !roundTrips {
			return
		}
		back, err := parseINI([]byte(out.String()))
		require.NoError(t, err, "%q", out.String())
		assert.Equal(t, sections, back)
	})
}

// BenchmarkParseINI reads a configuration file at the size limit: many
// distinct keys, then one value continued over many lines.
func BenchmarkParseINI(b *testing.B) {
	var doc strings.Builder
	doc.WriteString("[pytest]\n")
	for i := 0; doc.Len() < maxConfigBytes/2; i++ {
		fmt.Fprintf(&doc, "key%d = value %d\n", i, i)
	}
	doc.WriteString("addopts =\n")
	for doc.Len() < maxConfigBytes-16 {
		doc.WriteString("    --flag\n")
	}
	data := []byte(doc.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseINI(data); err != nil {
			b.Fatal(err)
		}
	}
}
