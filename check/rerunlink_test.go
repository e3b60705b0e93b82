package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hangar-dev/testresults/testrun"
)

func TestRerunID(t *testing.T) {
	for _, c := range []struct{ id, suffix, want string }{
		{"", "-rerun", ""},
		{"job-1", "-rerun", "job-1-rerun"},
		{"job-1", "-rerun-2", "job-1-rerun-2"},
		{strings.Repeat("a", testrun.MaxIDLength), "-rerun", ""},
	} {
		if got := RerunID(c.id, c.suffix); got != c.want {
			t.Errorf("RerunID(%q, %q) = %q, want %q", c.id, c.suffix, got, c.want)
		}
	}
}

func TestResultLink(t *testing.T) {
	code := 1
	r := &Result{Run: &testrun.Run{ID: "r1", Status: testrun.StatusFailure, ExitCode: &code}, Dir: "/runs/r1"}
	l := r.Link([]string{"t1"})
	if l.ID != "r1" || l.Dir != "/runs/r1" || l.Status != testrun.StatusFailure || l.ExitCode != &code || len(l.Excused) != 1 {
		t.Fatalf("Link = %+v", l)
	}
	if l := r.Link(nil); l.Excused != nil {
		t.Fatalf("Link(nil).Excused = %v, want nil", l.Excused)
	}
}

func TestNewTestsResultFileAndText(t *testing.T) {
	r := &NewTestsResult{Argv: []string{"go", "test", "-run", "^(A|B)$"}, Selected: true, Tests: []NewTest{
		{ID: "A", Class: NewTestFlaky, Outcomes: []testrun.Outcome{testrun.OutcomePassed, testrun.OutcomeFailed}},
		{ID: "B", Class: NewTestUnjudged, Outcomes: []testrun.Outcome{""}},
	}}
	dir := t.TempDir()
	if err := r.WriteFile(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, NewTestsFile))
	if err != nil {
		t.Fatal(err)
	}
	var back NewTestsResult
	if err := json.Unmarshal(b, &back); err != nil || len(back.Tests) != 2 || !back.Selected || !strings.HasSuffix(string(b), "}\n") {
		t.Fatalf("file %s: %v", b, err)
	}
	if got, want := r.How(), "go test -run '^(A|B)$'"; got != want {
		t.Errorf("How = %q, want %q", got, want)
	}
	if got := (&NewTestsResult{}).How(); got != "the whole check" {
		t.Errorf("How unselected = %q", got)
	}
	var w strings.Builder
	r.WriteText(&w)
	want := "\nnew tests (absent from every parent run):\n" +
		"  flaky_on_arrival  A  [passed failed]\n" +
		"  unjudged          B  [-]\n"
	if w.String() != want {
		t.Errorf("WriteText:\n%q\nwant\n%q", w.String(), want)
	}
}

func TestBudgetResultWriteText(t *testing.T) {
	var w strings.Builder
	(&BudgetResult{Verdict: testrun.RerunFlaky, Attempts: 2, Argv: []string{"pytest", "a.py::t"}, Selected: true, Flipped: []string{"a.py::t"}}).WriteText(&w, 3)
	want := "rerun budget 3 (the failing tests: pytest a.py::t): flaky after 2 attempts on the same tree\n" +
		"  failed, then passed on the same tree: a.py::t\n" +
		"  the check still fails: a rerun that passed excuses nothing in this job\n"
	if w.String() != want {
		t.Errorf("got\n%q\nwant\n%q", w.String(), want)
	}
	w.Reset()
	(&BudgetResult{Verdict: testrun.RerunBroken, Attempts: 1, Stopped: "interrupted"}).WriteText(&w, 1)
	want = "rerun budget 1 (the whole check): broken after 1 attempts on the same tree\n  reruns stopped: interrupted\n"
	if w.String() != want {
		t.Errorf("got\n%q\nwant\n%q", w.String(), want)
	}
}
