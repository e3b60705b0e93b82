package clidoc

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUsage(t *testing.T) {
	var b bytes.Buffer
	cmds := []Command{{Name: "parse", Synopsis: "parse reports"}, {Name: "diff", Synopsis: "compare two runs"}, {Name: "completion", Synopsis: "a script"}}
	Usage(&b, cmds, "Exit codes: 0 ok.")
	assert.Equal(t, `Usage: testresults COMMAND [flags] [args]
       testresults --version

Commands:
  completion a script
  diff       compare two runs
  parse      parse reports

Exit codes: 0 ok.
Run 'testresults COMMAND --help' for a command's flags.
`, b.String())
	assert.Equal(t, "parse", cmds[0].Name, "the caller's slice is not reordered")
}
