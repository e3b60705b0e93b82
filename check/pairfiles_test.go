package check

import (
	"os"
	"path/filepath"
	"testing"
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
