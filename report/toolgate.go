package report

import (
	"io"
	"os"

	"github.com/hangar-dev/testresults/testrun"
)

// CheckToolResultFile is the gate (testrun.CheckToolResult) for the tool
// result in the file at resultPath ("-": stdin, testrun.ReadToolResult)
// and the JUnit file at junitPath it names (ToolEvidence, relative to dir;
// "" is the current directory). A result that cannot be read is rejected
// with that reason. raw is what was read of the result; the error is only
// the current directory's, when it cannot be found.
func CheckToolResultFile(resultPath, junitPath, dir string, stdin io.Reader) (raw []byte, v testrun.ToolVerdict, err error) {
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, v, err
		}
	}
	raw, err = testrun.ReadToolResult(resultPath, stdin)
	if err != nil {
		return raw, testrun.ToolVerdict{Reasons: []string{"the result could not be read: " + err.Error()}}, nil
	}
	return raw, testrun.CheckToolResult(raw, ToolEvidence(junitPath, dir)), nil
}
