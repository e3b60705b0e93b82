package check_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hangar-dev/testresults/check"
)

// A check that writes a JUnit report into HANGAR_TESTS_DIR (as a runner
// pointed there by the variables would) and fails.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "check-example-")
	defer os.RemoveAll(dir)
	script := `cat > "$HANGAR_TESTS_DIR/junit.xml" <<'X'
<testsuite name="s"><testcase classname="calc" name="adds"/><testcase classname="calc" name="divides"><failure message="division by zero"/></testcase></testsuite>
X
exit 1`
	res, err := check.Run(context.Background(), []string{"sh", "-c", script},
		check.WithDir(dir),
		check.WithEnv([]string{"PATH=" + os.Getenv("PATH")}),
		check.WithReportDir(filepath.Join(dir, "run")))
	if err != nil {
		fmt.Println(err)
		return
	}
	run := res.Run
	fmt.Println(run.Status, *run.ExitCode, res.ExitCode)
	fmt.Printf("%d tests, %d failed, complete %v\n", run.Counts.Total, run.Counts.Failed, run.Complete)
	fmt.Println(run.Failures[0].ID, "-", run.Failures[0].Message)
	if _, err := check.WriteResults(res.Dir, run); err == nil {
		fmt.Println("wrote", check.ResultsFile)
	}
	// Output:
	// failure 1 1
	// 2 tests, 1 failed, complete true
	// calc::divides - division by zero
	// wrote TEST-RESULTS.json
}
