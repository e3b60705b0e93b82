package xmlsafe

import (
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// xcresultHeader is the DOCTYPE xcresultparser writes into every Cobertura
// file: Foundation's XMLDocument serialises the coverage-04 DTD as an
// internal subset, attribute defaults included.
const xcresultHeader = `<?xml version="1.0"?>
<!DOCTYPE coverage SYSTEM "https://github.com/cobertura/cobertura/blob/master/cobertura/src/site/htdocs/xml/coverage-04.dtd" [
    <!ELEMENT coverage (sources?, packages)>
    <!ATTLIST coverage line-rate CDATA #REQUIRED>
    <!ELEMENT sources (source)*>
    <!ELEMENT source (#PCDATA)>
    <!ELEMENT line (conditions)*>
    <!ATTLIST line number CDATA #REQUIRED>
    <!ATTLIST line branch CDATA "false">
    <!ATTLIST line condition-coverage CDATA "100%">
    <!ELEMENT condition EMPTY>
]>
`

// TestDoctypeSubsetAllowed checks that an internal subset holding only
// element and attribute-list declarations, comments and processing
// instructions is read past, and that nothing in it is applied: the tokens
// are those of the same document without its DOCTYPE.
func TestDoctypeSubsetAllowed(t *testing.T) {
	const body = `<r a="1"><line number="3"/></r>`
	tests := map[string]string{
		"xcresultparser": xcresultHeader,
		"attribute defaults are not applied": `<!DOCTYPE r [<!ATTLIST r a CDATA "injected" b CDATA #FIXED "fixed" c (x|y) "x">
			<!ATTLIST line hits CDATA '7' branch (true|false) "true">]>`,
		"quotes hold > ] and %":   `<!DOCTYPE r [<!ATTLIST r z CDATA "]>%x;!ENTITY" y CDATA '">'>]>`,
		"references in a default": `<!DOCTYPE r [<!ATTLIST r z CDATA "&amp;&lt;&#65;&#x42;">]>`,
		"comment holding declarations": `<!DOCTYPE r [<!-- <!ENTITY x "y"> %p; <![INCLUDE[ ]]> -->
			<!ELEMENT r ANY>]>`,
		"processing instruction": `<!DOCTYPE r [<?tool option="<!ENTITY"?><!ELEMENT r (#PCDATA|line)*>]>`,
		"public id, no subset":   `<!DOCTYPE r PUBLIC "-//X//DTD R//EN" 'http://example.com/r.dtd'>`,
		"system id and subset":   `<!DOCTYPE r SYSTEM "r.dtd"[<!ELEMENT r ANY>] >`,
		"name only":              `<!DOCTYPE r >`,
		"empty subset":           `<!DOCTYPE r []>`,
		"namespaced names":       `<!DOCTYPE x:r [<!ELEMENT x:r ANY><!ATTLIST x:r xmlns:x CDATA #IMPLIED>]>`,
	}
	want, err := events(t, strings.NewReader(body), Limits{})
	require.NoError(t, err)
	for name, doctype := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := events(t, strings.NewReader(doctype+body), Limits{})
			require.NoError(t, err)
			assert.Equal(t, want, got)
			// Read a byte at a time, the DOCTYPE is read the same.
			got, err = events(t, iotest.OneByteReader(strings.NewReader(doctype+body)), Limits{})
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// TestDoctypeSubsetRefused checks that anything but element and
// attribute-list declarations, comments and processing instructions in an
// internal subset refuses the document, with the sentinel that says why.
func TestDoctypeSubsetRefused(t *testing.T) {
	const body = `<coverage line-rate="1"/>`
	tests := []struct {
		name, doctype string
		want          error
	}{
		{"entity declaration", `<!DOCTYPE coverage [<!ELEMENT coverage ANY><!ENTITY x "y">]>`, ErrEntity},
		{"external entity", `<!DOCTYPE coverage [<!ENTITY x SYSTEM "file:///etc/passwd">]>`, ErrEntity},
		{"parameter entity declaration", `<!DOCTYPE coverage [<!ENTITY % p "CDATA">]>`, ErrEntity},
		{"parameter entity reference", `<!DOCTYPE coverage [<!ELEMENT coverage ANY> %p;]>`, ErrEntity},
		{"parameter entity in an element declaration", `<!DOCTYPE coverage [<!ELEMENT coverage %model;>]>`, ErrEntity},
		{"parameter entity in an attribute list", `<!DOCTYPE coverage [<!ATTLIST coverage line-rate %type; #REQUIRED>]>`, ErrEntity},
		{"parameter entity in the DOCTYPE", `<!DOCTYPE coverage %p;>`, ErrEntity},
		{"conditional section", `<!DOCTYPE coverage [<![INCLUDE[<!ELEMENT coverage ANY>]]>]>`, ErrDTD},
		{"ignored conditional section", `<!DOCTYPE coverage [<![IGNORE[<!ENTITY x "y">]]>]>`, ErrDTD},
		{"conditional section by parameter entity", `<!DOCTYPE coverage [<![ %draft; [<!ELEMENT coverage ANY>]]>]>`, ErrEntity},
		{"notation", `<!DOCTYPE coverage [<!NOTATION gif SYSTEM "image/gif">]>`, ErrDTD},
		{"entity after a notation", `<!DOCTYPE coverage [<!NOTATION gif SYSTEM "x"><!ENTITY x "y">]>`, ErrEntity},
		{"text in the subset", `<!DOCTYPE coverage [coverage]>`, ErrDTD},
		{"element in the subset", `<!DOCTYPE coverage [<coverage/>]>`, ErrDTD},
		{"undefined entity in a default", `<!DOCTYPE coverage [<!ATTLIST coverage v CDATA "&x;">]>`, ErrEntity},
		{"control character reference in a default", `<!DOCTYPE coverage [<!ATTLIST coverage v CDATA "&#27;">]>`, ErrChar},
		{"unterminated subset", `<!DOCTYPE coverage [<!ELEMENT coverage ANY>` + "\n", ErrTruncated},
		{"unterminated declaration", `<!DOCTYPE coverage [<!ATTLIST coverage line-rate CDATA "1`, ErrTruncated},
		{"unterminated comment", `<!DOCTYPE coverage [<!-- x`, ErrTruncated},
		{"too long", `<!DOCTYPE coverage [<!--` + strings.Repeat("x", maxDoctypeBytes) + `-->]>`, ErrDTD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := tt.doctype + body
			if tt.want == ErrTruncated {
				doc = tt.doctype // the document ends inside the DOCTYPE
			}
			_, err := events(t, strings.NewReader(doc), Limits{})
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.want)
			var se *SyntaxError
			assert.ErrorAs(t, err, &se)
		})
	}
}

// TestDoctypeMalformed checks that a DOCTYPE or a declaration no DTD
// grammar allows is a syntax error.
func TestDoctypeMalformed(t *testing.T) {
	docs := map[string]string{
		"no name":                    `<!DOCTYPE >`,
		"no space":                   `<!DOCTYPEr>`,
		"system without literal":     `<!DOCTYPE r SYSTEM>`,
		"public with one literal":    `<!DOCTYPE r PUBLIC "id">`,
		"text after the subset":      `<!DOCTYPE r [<!ELEMENT r ANY>] x>`,
		"lt in a default":            `<!DOCTYPE r [<!ATTLIST r a CDATA "<">]>`,
		"quote in element model":     `<!DOCTYPE r [<!ELEMENT r "x">]>`,
		"xml declaration in subset":  `<!DOCTYPE r [<?xml version="1.0"?>]>`,
		"bad processing instruction": `<!DOCTYPE r [<? x?>]>`,
	}
	for name, doctype := range docs {
		t.Run(name, func(t *testing.T) {
			_, err := events(t, strings.NewReader(doctype+`<r/>`), Limits{})
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.NotErrorIs(t, err, ErrTruncated)
		})
	}
}
