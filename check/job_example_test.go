package check_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/testrun"
)

// A job whose check fails one test, which a quarantine entry made before
// the job started excuses: the job exits 0, and its TEST-RESULTS.json is
// written all the same.
func ExampleJob() {
	dir, _ := os.MkdirTemp("", "check-job-example-")
	defer os.RemoveAll(dir)
	script := `cat > "$HANGAR_TESTS_DIR/junit.xml" <<'X'
<testsuite name="s"><testcase classname="calc" name="adds"/><testcase classname="calc" name="divides"><failure message="division by zero"/></testcase></testsuite>
X
exit 1`
	created := time.Now().Add(-time.Hour)
	job := &check.Job{
		Options: []check.Option{
			check.WithDir(dir),
			check.WithEnv([]string{"PATH=" + os.Getenv("PATH")}),
			check.WithReportDir(filepath.Join(dir, "run")),
		},
		Quarantine: true,
		OpenList: func(context.Context) (*check.FlakyList, error) {
			return &check.FlakyList{Quarantine: func(_ context.Context, ids []string) ([]testrun.QuarantineEntry, error) {
				return []testrun.QuarantineEntry{{TestID: "calc::divides", Owner: "ana", Reason: "fixing it",
					Created: created, Expires: created.Add(24 * time.Hour)}}, nil
			}}, nil
		},
		Text: os.Stdout,
	}
	res, err := job.Run(context.Background(), []string{"sh", "-c", script})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("exit", res.Code, "- the check exited", res.First.ExitCode)
	_, err = os.Stat(filepath.Join(res.First.Dir, check.ResultsFile))
	fmt.Println("wrote", check.ResultsFile, err == nil)
	// Output:
	//   quarantined failures (still reported): calc::divides
	//   every failure is quarantined: exit 0 (the check exited 1)
	// exit 0 - the check exited 1
	// wrote TEST-RESULTS.json true
}
