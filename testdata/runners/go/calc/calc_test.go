package calc

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("1+2 should be 3")
	}
}

func TestFailure(t *testing.T) {
	if got := Add(2, 2); got != 5 {
		t.Errorf("total mismatch: want 5 got %d", got)
	}
}

func TestSecretInMessage(t *testing.T) {
	t.Error("login failed for https://ci:password=hunter2-not-real@example.invalid " +
		"headers Authorization: Bearer abc.def.ghi key AKIAIOSFODNN7EXAMPLE")
}

func TestSkipped(t *testing.T) {
	t.Skip("not supported on this platform")
}

// TestFlaky fails on its first attempt and passes on the next one. The
// attempts are counted in a file under $FLAKY_STATE_DIR, which must be a
// fresh directory for every run of the suite (without it every attempt is
// a first one).
func TestFlaky(t *testing.T) {
	dir := os.Getenv("FLAKY_STATE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	f := filepath.Join(dir, "go-flaky-attempts")
	n := 0
	if b, err := os.ReadFile(f); err == nil {
		n, _ = strconv.Atoi(string(b))
	}
	n++
	if err := os.WriteFile(f, []byte(strconv.Itoa(n)), 0o600); err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Fatalf("attempt %d fails on purpose", n)
	}
}

func TestOuter(t *testing.T) {
	t.Run("inner", func(t *testing.T) {
		t.Run("deeper passes", func(t *testing.T) {})
		t.Run("deeper fails", func(t *testing.T) {
			t.Error("nested comparison: [1 2] != [1 3]")
		})
	})
	t.Run("größe_名前", func(t *testing.T) {})
	t.Run("a::b > c › d", func(t *testing.T) {})
}
