//go:build hang

// Package hang holds a test that outlives go test's -timeout: run with
// -tags hang -timeout 3s, the test binary panics while TestHangs/inner
// sleeps, and neither test ever ends. Without the tag the package has no
// files, so go test ./... passes it over.
package hang

import (
	"testing"
	"time"
)

func TestQuick(t *testing.T) {}

func TestHangs(t *testing.T) {
	t.Run("inner", func(t *testing.T) {
		t.Log("waiting for a reply that never comes")
		time.Sleep(time.Minute)
	})
}
