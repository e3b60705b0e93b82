// Package sub holds subtests: nested ones, parallel ones, a failing one
// and a skipped one.
package sub

import "testing"

func TestOuter(t *testing.T) {
	t.Run("passes", func(t *testing.T) {})
	t.Run("nested", func(t *testing.T) {
		t.Run("deeper passes", func(t *testing.T) {})
		t.Run("deeper fails", func(t *testing.T) {
			t.Errorf("nested comparison: %v != %v", []int{1, 2}, []int{1, 3})
		})
	})
	t.Run("skipped", func(t *testing.T) { t.Skip("skipped subtest") })
}

func TestParallel(t *testing.T) {
	for _, name := range []string{"a", "b", "c"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Logf("parallel subtest %s", name)
		})
	}
}

func TestNames(t *testing.T) {
	t.Run("a::b > c", func(t *testing.T) {})
	t.Run("größe 名前", func(t *testing.T) {})
}
