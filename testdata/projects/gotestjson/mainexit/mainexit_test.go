// Package mainexit has a TestMain that exits 1 after every test passed: a
// failed teardown, outside any test.
package mainexit

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		fmt.Println("teardown: could not remove the database")
		code = 1
	}
	os.Exit(code)
}

func TestFirst(t *testing.T) {}

func TestSecond(t *testing.T) {}
