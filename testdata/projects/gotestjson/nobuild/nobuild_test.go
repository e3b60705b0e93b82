package nobuild

import "testing"

func TestNeverBuilt(t *testing.T) {
	var n int = "not a number"
	_ = n
}
