// Package fixture is a small go test suite with one test of each outcome,
// for the end-to-end tests of testresults run. STATE_DIR names a folder
// where the retried test keeps how often it ran.
package fixture

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPasses(t *testing.T) {}

func TestFails(t *testing.T) { t.Fatal("expected 1, got 2") }

func TestSkipped(t *testing.T) { t.Skip("not on this machine") }

func TestRetried(t *testing.T) {
	marker := filepath.Join(os.Getenv("STATE_DIR"), "go-retried")
	if _, err := os.Stat(marker); err != nil {
		os.WriteFile(marker, nil, 0o644)
		t.Fatal("fails on its first attempt only")
	}
}
