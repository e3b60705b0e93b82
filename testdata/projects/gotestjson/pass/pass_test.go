package pass

import (
	"fmt"
	"testing"
)

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
}

func TestLogs(t *testing.T) {
	t.Log("a passing test may log")
}

func ExampleAdd() {
	fmt.Println(Add(1, 1))
	// Output: 2
}
