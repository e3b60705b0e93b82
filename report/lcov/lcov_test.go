package lcov

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

func TestMerge(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "merged.info"))
	require.NoError(t, err)
	defer f.Close()
	cov, err := Parse(f, "merged.info")
	require.NoError(t, err)
	require.Len(t, cov.Files, 2)
	assert.Equal(t, map[int64]bool{1: true, 2: true, 3: false}, cov.Files["src/a.c"].Lines)
	assert.EqualValues(t, 10, cov.Files["src/summary.rs"].Found)
	assert.EqualValues(t, 7, cov.Files["src/summary.rs"].Hit)
}

func TestRefused(t *testing.T) {
	tests := map[string]error{
		"SF:a\nDA:1\nend_of_record\n":              ErrMalformed,
		"SF:a\nDA:x,1\nend_of_record\n":            ErrMalformed,
		"SF:a\nDA:1,-1\nend_of_record\n":           ErrMalformed,
		"SF:a\nDA:2147483648,1\nend_of_record\n":   ErrMalformed,
		"DA:1,1\n":                                 ErrMalformed,
		"SF:a\nLF:1\nLH:2\nend_of_record\n":        ErrMalformed,
		"SF:a\nSF:b\nend_of_record\n":              ErrMalformed,
		"SF:a\nDA:1,1\n":                           xmlsafe.ErrTruncated,
		"":                                         xmlsafe.ErrEmpty,
		"SF:a\x00\nend_of_record\n":                xmlsafe.ErrBinary,
		"SF:" + strings.Repeat("x", 70<<10) + "\n": ErrMalformed,
	}
	for doc, want := range tests {
		_, err := Parse(strings.NewReader(doc), "f.info")
		assert.ErrorIs(t, err, want, "%.40q", doc)
	}
	_, err := Parse(strings.NewReader(strings.Repeat("TN:x\n", 20)), "f.info", WithLimits(Limits{MaxRecords: 10}))
	assert.ErrorIs(t, err, xmlsafe.ErrLimit)
	_, err = Parse(strings.NewReader(strings.Repeat("TN:x\n", 20)), "f.info", WithLimits(Limits{MaxBytes: 50}))
	assert.ErrorIs(t, err, xmlsafe.ErrLimit)
}

func TestRecords(t *testing.T) {
	// coverage.py 6.5 writes an empty module as DA:0 with LH:1 over LF:0:
	// line 0 names no line and, with DA lines, LF/LH are not needed.
	doc := "TN:\nSF:/src/repo/pkg/__init__.py\nDA:0,1,1B2M2Y8AsgTpgAmY7PhCfg\nLF:0\nLH:1\nend_of_record\n" +
		"SF:/src/repo/pkg/a.py\nDA:1,1,x\nDA:2,0\nLF:9\nLH:9\nend_of_record\n" +
		"SF:/elsewhere/b.c\nLF:4\nLH:1\nend_of_record\n" +
		"SF:c.js\nend_of_record\n"
	cov, err := Parse(strings.NewReader(doc), "lcov.info", WithWorkDir("/src/repo"))
	require.NoError(t, err)
	assert.Equal(t, map[int64]bool{}, cov.Files["pkg/__init__.py"].Lines)
	assert.Equal(t, map[int64]bool{1: true, 2: false}, cov.Files["pkg/a.py"].Lines)
	assert.Nil(t, cov.Files["/elsewhere/b.c"].Lines, "a record of totals only")
	assert.EqualValues(t, 4, cov.Files["/elsewhere/b.c"].Found)
	assert.Equal(t, map[int64]bool{}, cov.Files["c.js"].Lines, "a record with neither DA nor LF states no line")
	assert.Len(t, cov.Files, 4)
	assert.True(t, cov.OnlyTotals())

	cov, err = Parse(strings.NewReader(doc), "lcov.info")
	require.NoError(t, err)
	assert.Contains(t, cov.Files, "/src/repo/pkg/a.py", "without a working directory SF stays as written")
}

func TestHugeHitCount(t *testing.T) {
	cov, err := Parse(strings.NewReader("SF:a\nDA:13,18446744073709551615\nDA:14,0000\nend_of_record\n"), "f.info")
	require.NoError(t, err)
	assert.Equal(t, map[int64]bool{13: true, 14: false}, cov.Files["a"].Lines)
}
