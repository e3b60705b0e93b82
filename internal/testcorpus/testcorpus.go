// Package testcorpus locates, for tests, the repository root and the shared
// corpus of real reports that lies beside it (../shared/corpus). A clone
// without the corpus skips the tests that read it, saying why.
package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the repository root: the folder holding go.mod, found
// upwards from the test's working directory.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("testcorpus: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("testcorpus: no go.mod above %s", dir)
		}
		dir = parent
	}
}

// Dir returns the shared corpus of real reports, ../shared/corpus beside
// the repository, and skips the test when it is absent, except under CI
// (CI=true), where its absence fails the test.
func Dir(tb testing.TB) string {
	tb.Helper()
	c := filepath.Join(Root(tb), "..", "shared", "corpus")
	if _, err := os.Stat(filepath.Join(c, "MANIFEST.tsv")); err != nil {
		if os.Getenv("CI") == "true" {
			// Under CI the corpus is always there: its absence is a broken
			// set-up, not a reason to pass with less evidence.
			tb.Fatalf("the shared corpus of real reports is absent under CI=true (it lies beside the repository as ../shared/corpus): %v", err)
		}
		tb.Skipf("the shared corpus of real reports is absent (it lies beside the repository as ../shared/corpus): %v", err)
	}
	return c
}
