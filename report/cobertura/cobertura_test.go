package cobertura

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

func TestParse(t *testing.T) {
	cov, err := Parse(strings.NewReader(`<?xml version="1.0"?>
<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">
<coverage line-rate="0,75" lines-covered="3" lines-valid="4"><packages/></coverage>`), "c.xml")
	require.NoError(t, err)
	assert.InDelta(t, 0.75, *cov.LineRate, 1e-12)
	assert.EqualValues(t, 3, *cov.LinesCovered)
	assert.EqualValues(t, 4, *cov.LinesValid)

	cov, err = Parse(strings.NewReader(`<coverage line-rate="1"/>`), "c.xml")
	require.NoError(t, err)
	assert.Nil(t, cov.LinesCovered)
}

func TestLines(t *testing.T) {
	const classes = `
		<class name="a" filename="a.py"><methods><method name="f"><lines><line number="99" hits="1"/></lines></method></methods>
			<lines><line number="1" hits="1"/><line number="2" hits="0"/><line number="0" hits="1"/></lines></class>
		<class name="a2" filename="a.py"><lines><line number="2" hits="3"/><line number="3" hits="18446744073709551616"/></lines></class>
		<class name="b" filename="/src/repo/lib/b.py"><lines><line number="7" hits=" 0 "/></lines></class>
		<class name="c" filename="/other/root/c.py"><lines/></class>
		<class name="d" filename="/elsewhere/d.py"><lines><line number="1" hits="0"/></lines></class>`
	doc := func(sources string) string {
		return `<?xml version="1.0" ?><coverage lines-valid="5" lines-covered="3" line-rate="0.6"><sources>` + sources +
			`</sources><packages><package name="p"><classes>` + classes + `</classes></package></packages></coverage>`
	}
	a := map[int64]bool{1: true, 2: true, 3: true} // method lines and line 0 are not counted
	tests := []struct {
		name, sources, workDir string
		want                   map[string]map[int64]bool
	}{
		{"one root under the working directory", `<source>/src/repo/pkg</source>`, "/src/repo",
			map[string]map[int64]bool{"pkg/a.py": a, "lib/b.py": {7: false}, "/other/root/c.py": {}, "/elsewhere/d.py": {1: false}}},
		{"two roots: relative names stay as written", "<source>/src/repo/pkg</source><source>\n\t/other/root\n</source>", "/src/repo",
			map[string]map[int64]bool{"a.py": a, "lib/b.py": {7: false}, "c.py": {}, "/elsewhere/d.py": {1: false}}},
		{"no working directory", `<source>/src/repo/pkg</source>`, "",
			map[string]map[int64]bool{"a.py": a, "/src/repo/lib/b.py": {7: false}, "/other/root/c.py": {}, "/elsewhere/d.py": {1: false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cov, err := Parse(strings.NewReader(doc(tt.sources)), "c.xml", WithWorkDir(tt.workDir))
			require.NoError(t, err)
			assert.False(t, cov.OnlyTotals())
			got := map[string]map[int64]bool{}
			for name, f := range cov.Files {
				got[name] = f.Lines
			}
			assert.Equal(t, tt.want, got)
			assert.EqualValues(t, 3, *cov.LinesCovered, "the stated totals are kept")
		})
	}
}

func TestTotalsOnly(t *testing.T) {
	for name, doc := range map[string]string{
		"no classes":            `<coverage line-rate="0.5" lines-covered="1" lines-valid="2"><packages/></coverage>`,
		"classes without lines": `<coverage line-rate="0.5"><packages><package><classes><class filename="a.py"><lines/></class></classes></package></packages></coverage>`,
		"only method lines":     `<coverage line-rate="0.5"><packages><package><classes><class filename="a.py"><methods><method><lines><line number="1" hits="1"/></lines></method></methods></class></classes></package></packages></coverage>`,
	} {
		t.Run(name, func(t *testing.T) {
			cov, err := Parse(strings.NewReader(doc), "c.xml")
			require.NoError(t, err)
			assert.Nil(t, cov.Files)
			assert.True(t, cov.OnlyTotals())
		})
	}
}

func TestRefused(t *testing.T) {
	tests := map[string]error{
		`<coverage line-rate="2"/>`:                                  ErrValue,
		`<coverage line-rate="x"/>`:                                  ErrValue,
		`<coverage lines-covered="5" lines-valid="4"/>`:              ErrValue,
		`<coverage lines-covered="-1"/>`:                             ErrValue,
		`<coverage clover="4.4" generated="1"><project/></coverage>`: ErrNotCobertura,
		`<testsuite/>`:                                               ErrNotCobertura,
		`<coverage line-rate="0.5"><packages>`:                       xmlsafe.ErrTruncated,
		`<!DOCTYPE coverage [<!ENTITY x "y">]><coverage/>`:           xmlsafe.ErrEntity,
		`<coverage line-rate="1"><class><lines/></class></coverage>`: ErrValue,
		`<coverage line-rate="1"><class filename="a"><lines><line hits="1"/></lines></class></coverage>`:                               ErrValue,
		`<coverage line-rate="1"><class filename="a"><lines><line number="-1" hits="1"/></lines></class></coverage>`:                   ErrValue,
		`<coverage line-rate="1"><class filename="a"><lines><line number="1"/></lines></class></coverage>`:                             ErrValue,
		`<coverage line-rate="1"><class filename="a"><lines><line number="1" hits="1.5"/></lines></class></coverage>`:                  ErrValue,
		`<coverage line-rate="1"><class filename="a"><lines><line number="99999999999999999999" hits="1"/></lines></class></coverage>`: ErrValue,
		`<coverage line-rate="1"><class filename="a"><lines><line number="2147483648" hits="1"/></lines></class></coverage>`:           ErrValue,
		`<coverage line-rate="1"><sources>` + strings.Repeat(`<source>/s</source>`, MaxSources+1) + `</sources></coverage>`:            ErrValue,
		`<coverage line-rate="1"><class filename="a"><lines><line number="1" hits="1"/>`:                                               xmlsafe.ErrTruncated,
	}
	for doc, want := range tests {
		cov, err := Parse(strings.NewReader(doc), "c.xml")
		assert.ErrorIs(t, err, want, doc)
		assert.Nil(t, cov)
	}
}
