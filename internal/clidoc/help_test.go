package clidoc

import (
	"strings"
	"testing"
)

func TestHelpFiles(t *testing.T) {
	names := HelpNames()
	if len(names) == 0 {
		t.Fatal("no usage texts embedded")
	}
	for _, n := range names {
		h := Help(n)
		if !strings.HasPrefix(h, "Usage: testresults ") {
			t.Errorf("%s: usage text starts %q, want \"Usage: testresults \"", n, firstLine(h))
		}
		if strings.HasSuffix(h, "\n\n") || !strings.HasSuffix(h, "\n") {
			t.Errorf("%s: usage text must end in exactly one newline", n)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Help of a command without a text did not panic")
		}
	}()
	Help("no-such-command")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
