package textout

import (
	"fmt"
	"strings"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

// listShown is how many ids a one-line list shows before it counts the rest.
const listShown = 10

// Plural is word, with an s unless n is 1.
func Plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Quantity is "1 test" or "n tests".
func Quantity(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, Plural(n, noun))
}

// ListTail is ": a, b, c" for the first ids of a list, with how many more
// there are; "" for no ids.
func ListTail(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	shown := make([]string, min(listShown, len(ids)))
	for i := range shown {
		shown[i] = term.EscapeLine(ids[i])
	}
	s := ": " + strings.Join(shown, ", ")
	if len(ids) > listShown {
		s += fmt.Sprintf(", and %d more", len(ids)-listShown)
	}
	return s
}

// Outcomes is the outcomes of one test across runs, "missing" where a run
// did not have it: "passed,failed,missing".
func Outcomes(list []testrun.Outcome) string {
	s := make([]string, len(list))
	for i, o := range list {
		s[i] = string(o)
		if o == "" {
			s[i] = "missing"
		}
	}
	return strings.Join(s, ",")
}
