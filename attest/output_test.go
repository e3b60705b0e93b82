package attest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hangar-dev/testresults/attest"
)

func TestReportsBase(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for output, want := range map[string]string{"-": wd, "out/att.json": "out", "att.json": ".", "/a/b/att.json": "/a/b"} {
		if got, err := attest.ReportsBase(output); err != nil || got != filepath.FromSlash(want) {
			t.Errorf("ReportsBase(%q) = %q, %v; want %q", output, got, err, want)
		}
	}
}
