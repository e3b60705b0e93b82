package cobertura

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

// xcresultFixture is a Cobertura file with the header xcresultparser writes
// (the coverage-04 DTD as an internal subset, attribute defaults included).
var xcresultFixture = filepath.Join("..", "..", "testdata", "producers", "xcresultparser", "coverage.xml")

// TestXcresultparserDTD checks that xcresultparser's Cobertura file is read,
// and read exactly as the same file without its DOCTYPE: the internal
// subset is passed over, nothing in it applied.
func TestXcresultparserDTD(t *testing.T) {
	data, err := os.ReadFile(xcresultFixture)
	require.NoError(t, err)
	cov, err := Parse(bytes.NewReader(data), "coverage.xml")
	require.NoError(t, err)
	require.NotNil(t, cov.LinesValid)
	assert.EqualValues(t, 10, *cov.LinesValid)
	assert.EqualValues(t, 7, *cov.LinesCovered)
	require.Len(t, cov.Files, 2)
	assert.Equal(t, map[int64]bool{3: true, 4: true, 5: true, 8: true, 9: false, 10: true}, cov.Files["Sources/Calc/Calculator.swift"].Lines)
	assert.Equal(t, map[int64]bool{12: true, 13: true, 14: false, 15: false}, cov.Files["Sources/Calc/Parser.swift"].Lines)

	start := bytes.Index(data, []byte("<!DOCTYPE"))
	end := bytes.Index(data, []byte("]>\n")) + len("]>\n")
	require.Positive(t, start)
	require.Greater(t, end, start)
	bare, err := Parse(bytes.NewReader(append(data[:start:start], data[end:]...)), "coverage.xml")
	require.NoError(t, err)
	assert.Equal(t, bare, cov)
}

// TestDTDDefaultsNotApplied checks that an attribute default declared in
// the internal subset is never added to the document: a root without
// totals keeps none, and a <line> without hits stays a line without hits.
func TestDTDDefaultsNotApplied(t *testing.T) {
	const dtd = `<!DOCTYPE coverage [
		<!ATTLIST coverage lines-covered CDATA "5" lines-valid CDATA "10" line-rate CDATA "0.5">
		<!ATTLIST line hits CDATA "1">
		<!ATTLIST class filename CDATA "injected.py">
	]>`
	cov, err := Parse(strings.NewReader(dtd+`<coverage line-rate="1"/>`), "c.xml")
	require.NoError(t, err)
	assert.InDelta(t, 1, *cov.LineRate, 0)
	assert.Nil(t, cov.LinesCovered, "lines-covered default applied")
	assert.Nil(t, cov.LinesValid, "lines-valid default applied")

	_, err = Parse(strings.NewReader(dtd+`<coverage line-rate="1"><packages><package><classes>
		<class filename="a.py"><lines><line number="1"/></lines></class></classes></package></packages></coverage>`), "c.xml")
	assert.ErrorIs(t, err, ErrValue, "hits default applied")

	_, err = Parse(strings.NewReader(dtd+`<coverage line-rate="1"><packages><package><classes>
		<class><lines><line number="1" hits="1"/></lines></class></classes></package></packages></coverage>`), "c.xml")
	assert.ErrorIs(t, err, ErrValue, "filename default applied")
}

// TestDTDHostileTwins checks that xcresultparser's header with one more
// declaration the reader does not allow refuses the report, with the
// sentinel that says why.
func TestDTDHostileTwins(t *testing.T) {
	tests := map[string]error{
		"xcresult-dtd-entity.xml":           xmlsafe.ErrEntity,
		"xcresult-dtd-parameter-entity.xml": xmlsafe.ErrEntity,
		"xcresult-dtd-conditional.xml":      xmlsafe.ErrDTD,
	}
	for file, want := range tests {
		t.Run(file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "testdata", "hostile", file))
			require.NoError(t, err)
			defer f.Close()
			cov, err := Parse(f, file)
			require.ErrorIs(t, err, want)
			var se *SyntaxError
			assert.ErrorAs(t, err, &se)
			assert.Nil(t, cov)
		})
	}
}
