package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAbsPairFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("fix.diff", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	patch, pins := "fix.diff", "pins.json" // the pins file need not exist yet
	if which, err := AbsPairFiles(&patch, &pins); err != nil {
		t.Fatalf("%s: %v", which, err)
	}
	if !filepath.IsAbs(patch) || filepath.Base(patch) != "fix.diff" || !filepath.IsAbs(pins) {
		t.Fatalf("patch %q, pins %q: want absolute", patch, pins)
	}
	empty, none := "", ""
	if _, err := AbsPairFiles(&empty, &none); err != nil || empty != "" || none != "" {
		t.Fatalf("empty paths: %q %q %v", empty, none, err)
	}
	missing := "nope.diff"
	if which, err := AbsPairFiles(&missing, &none); which != "patch" || err == nil || missing != "nope.diff" {
		t.Fatalf("missing diff: %q, %v, path %q", which, err, missing)
	}
}

// TestPairCheck: each value a pair cannot use is refused before anything
// runs, in the words of pair's flags, and a good pair has its files made
// absolute.
func TestPairCheck(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("fix.diff", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pair    Pair
		newRuns int
		want    string
	}{
		{Pair{Runs: 1}, 0, "--runs 1: want at least 2"},
		{Pair{Runs: 2, Patch: "fix.diff", PatchRef: "HEAD"}, 0, "give --patch or --patch-ref, not both"},
		{Pair{Runs: 2, Timeout: -time.Second}, 0, "--timeout -1s is negative"},
		{Pair{Runs: 2}, -1, "--new-test-runs -1: want 0 to 20"},
		{Pair{Runs: 2}, MaxNewTestRuns + 1, "--new-test-runs 21: want 0 to 20"},
		{Pair{Runs: 2, Patch: "nope.diff"}, 0, "--patch: stat "},
	} {
		err := tc.pair.Check(tc.newRuns)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v, %d new-test runs: %v, want %q", tc.pair, tc.newRuns, err, tc.want)
		}
	}
	p := Pair{Runs: 2, Patch: "fix.diff", Pins: "pins.json"}
	if err := p.Check(MaxNewTestRuns); err != nil || !filepath.IsAbs(p.Patch) || !filepath.IsAbs(p.Pins) {
		t.Fatalf("a good pair: %v, patch %q, pins %q", err, p.Patch, p.Pins)
	}
}

func TestNewTestsSummary(t *testing.T) {
	if got := (&NewTestsResult{}).Summary(); got != "none (every patch test is in a parent run)" {
		t.Errorf("no new tests: %q", got)
	}
}
