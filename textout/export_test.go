package textout

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hangar-dev/testresults/internal/term"
)

// TestExported: the prefix is green only through a terminal writer with
// colour on; elsewhere the line is plain, and a report's escape sequence in
// it is escaped on the terminal writer either way.
func TestExported(t *testing.T) {
	const line = "exported 1 run in 2 spans to stdout"
	var plain bytes.Buffer
	Summary{W: &plain, Color: true}.Exported(line, "exported")
	assert.Equal(t, "testresults export: "+line+"\n", plain.String(), "no terminal writer: no colour")

	var off bytes.Buffer
	Summary{W: term.NewWriter(&off)}.Exported(line, "exported")
	assert.Equal(t, "testresults export: "+line+"\n", off.String())

	var on bytes.Buffer
	w := term.NewWriter(&on)
	w.Color = true
	Summary{W: w, Color: true}.Exported(line+" \x1b[2J", "exported")
	assert.Equal(t, "testresults export: \x1b[32mexported\x1b[0m 1 run in 2 spans to stdout \\x1b[2J\n", on.String())

	var other bytes.Buffer
	w2 := term.NewWriter(&other)
	w2.Color = true
	Summary{W: w2, Color: true}.Exported("nothing exported", "exported")
	assert.Equal(t, "testresults export: nothing exported\n", other.String(), "no prefix: nothing painted")
}
