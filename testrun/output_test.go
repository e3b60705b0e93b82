package testrun

import (
	"fmt"
	"os"
	osexec "os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/lazyre"
)

func outputRegexps() []*lazyre.Regexp {
	out := []*lazyre.Regexp{ansiEscape}
	for _, p := range outputPatterns {
		out = append(out, p.re)
	}
	return out
}

// TestOutputPatternsCompile: the patterns are compiled on first use, so a
// pattern that does not compile would panic only when a line needs it.
func TestOutputPatternsCompile(t *testing.T) {
	for _, re := range outputRegexps() {
		assert.NotPanics(t, func() { re.Regexp() }, re.String())
	}
}

// TestScanOutputCompilesOnFirstUse: initialising the package compiles none
// of the output patterns, and a line that no runner's quick check matches
// compiles none either. It runs in a fresh process, where no other test
// has scanned output.
func TestScanOutputCompilesOnFirstUse(t *testing.T) {
	if os.Getenv("TESTRUN_OUTPUT_CHILD") == "1" {
		report := func(when string) {
			for _, re := range outputRegexps() {
				if re.Compiled() {
					fmt.Printf("%s: compiled %s\n", when, re)
				}
			}
		}
		report("at start")
		if got := ScanOutput([]byte("ok\nPASS\n")); len(got) != 0 {
			fmt.Printf("plain lines named %v\n", got)
		}
		report("after plain lines")
		got := ScanOutput([]byte("\x1b[31m--- FAIL: TestX (0.00s)\x1b[0m\n"))
		fmt.Printf("then found %v\n", got)
		return
	}
	cmd := osexec.Command(os.Args[0], "-test.run=^TestScanOutputCompilesOnFirstUse$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TESTRUN_OUTPUT_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NotContains(t, string(out), "compiled ")
	assert.NotContains(t, string(out), "plain lines named")
	assert.Contains(t, string(out), "then found [{TestX go --- FAIL: TestX (0.00s)}]")
	assert.Contains(t, string(out), "PASS")
}
