package textout

import (
	"strings"

	"github.com/hangar-dev/testresults/internal/term"
)

// Exported prints the summary line of an export (exporter's Result.Summary)
// as `testresults export` does, its leading prefix (exporter.SummaryPrefix,
// "exported") in green when colour is on. A line without the prefix is
// printed as it is.
func (s Summary) Exported(line, prefix string) {
	if rest, ok := strings.CutPrefix(line, prefix); ok && prefix != "" {
		s.printf("testresults export: %s%s\n", s.style(term.StyleGreen, prefix), rest)
		return
	}
	s.printf("testresults export: %s\n", line)
}
