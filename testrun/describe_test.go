package testrun

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDescriptionDescribe(t *testing.T) {
	reports := []ReportInfo{{Path: "a.xml", SHA256: "aa"}}
	t.Run("nothing said: the id is derived, the reports' status stays", func(t *testing.T) {
		r := &Run{Reports: reports, Status: StatusFailure}
		Description{}.Describe(r)
		assert.Equal(t, DeriveID(reports), r.ID)
		assert.NotEmpty(t, r.ID)
		assert.Equal(t, StatusFailure, r.Status)
		assert.Nil(t, r.ExitCode)
	})
	t.Run("an exit code sets the status", func(t *testing.T) {
		code := 0
		r := &Run{Reports: reports, Status: StatusFailure}
		Description{ID: "x", ExitCode: &code}.Describe(r)
		assert.Equal(t, "x", r.ID)
		assert.Equal(t, StatusSuccess, r.Status)
		code = 7
		assert.Equal(t, 0, *r.ExitCode, "the run keeps its own copy")
	})
	t.Run("a status wins over the exit code", func(t *testing.T) {
		code := 1
		start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		r := &Run{}
		Description{ExitCode: &code, Status: StatusTimedOut, Kind: KindGrader, Grade: "isolated", Commit: "abc1", Command: "go test",
			Tree: "t1", AgentRunID: "ag", StartedAt: start, EndedAt: start.Add(time.Second)}.Describe(r)
		assert.Equal(t, StatusTimedOut, r.Status)
		assert.Equal(t, 1, *r.ExitCode)
		assert.Equal(t, &Run{ID: DeriveID(nil), Kind: KindGrader, Grade: "isolated", Commit: "abc1", Command: "go test", Tree: "t1", AgentRunID: "ag",
			StartedAt: start, EndedAt: start.Add(time.Second), ExitCode: r.ExitCode, Status: StatusTimedOut}, r)
	})
}

// TestDescribeRedactsTheCommand: a secret on the command line a caller
// gives is not kept in the run.
func TestDescribeRedactsTheCommand(t *testing.T) {
	run := &Run{}
	Description{Command: "pytest --token abcdef123456 DB_PASSWORD=hunter2xyz"}.Describe(run)
	assert.Equal(t, "pytest --token "+Redacted+" DB_PASSWORD="+Redacted, run.Command)
}
