package actiontest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// needTools skips the test where a program the integrations run is absent,
// and fails it under CI, where scripts/test.sh has installed them.
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not on PATH: the CI integrations' tests need it under CI", n)
			}
			t.Skipf("%s is not on PATH: the CI integrations' tests need it", n)
		}
	}
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// cli builds cmd/testresults once for the package and returns the folder
// holding the binary, to put on PATH.
func cli(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "actiontest-bin-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, "testresults"), "./cmd/testresults")
		cmd.Dir = testcorpus.Root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/testresults: %v\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// systemPath is PATH without any folder that holds a testresults binary, so
// only the one the test built is found (or none).
func systemPath() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "testresults")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// checkScript is a real check: it writes a JUnit report into the report
// folder testresults gives it (HANGAR_TESTS_DIR), one test case per
// argument ("name=pass", "name=fail:message", "name=error:message"), prints
// a line and exits with $CHECK_EXIT.
const checkScript = `#!/bin/sh
set -eu
f="$HANGAR_TESTS_DIR/check.xml"
{
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo "<testsuite name=\"check\" tests=\"$#\">"
  for tc in "$@"; do
    name=${tc%%=*}
    what=${tc#*=}
    case "$what" in
      pass) echo "<testcase classname=\"pkg.mod\" name=\"$name\"/>" ;;
      fail:*) echo "<testcase classname=\"pkg.mod\" name=\"$name\"><failure message=\"${what#fail:}\"/></testcase>" ;;
      error:*) echo "<testcase classname=\"pkg.mod\" name=\"$name\"><error message=\"${what#error:}\"/></testcase>" ;;
    esac
  done
  echo '</testsuite>'
} > "$f"
echo "check ran in $(basename "$PWD")"
exit "${CHECK_EXIT:-0}"
`

// workspace makes a checkout-like folder holding check.sh.
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "check.sh"), []byte(checkScript), 0o755))
	return ws
}

// commands returns the workflow command lines ("::...") of a step's stdout.
func commands(stdout string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "::") {
			out = append(out, sc.Text())
		}
	}
	return out
}

// readOutputs reads a GITHUB_OUTPUT file written in its key=value form.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		require.True(t, ok, "GITHUB_OUTPUT line %q", line)
		m[k] = v
	}
	return m
}

// exitCode is the exit code of a finished command, or fails the test when it
// could not be started.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	ee, ok := err.(*exec.ExitError)
	require.True(t, ok, "the command could not run: %v", err)
	return ee.ExitCode()
}
