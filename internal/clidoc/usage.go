package clidoc

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Usage writes testresults' own usage: how it is called, each command of
// cmds with its synopsis (sorted by name, the synopses aligned), exitCodes
// and where a command's flags are.
func Usage(w io.Writer, cmds []Command, exitCodes string) {
	cmds = slices.Clone(cmds)
	slices.SortFunc(cmds, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	var b strings.Builder
	b.WriteString("Usage: testresults COMMAND [flags] [args]\n       testresults --version\n\nCommands:\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-*s %s\n", width, c.Name, c.Synopsis)
	}
	fmt.Fprintf(&b, "\n%s\nRun 'testresults COMMAND --help' for a command's flags.\n", exitCodes)
	_, _ = io.WriteString(w, b.String()) // a failed write to stdout or stderr has no one else to tell
}
