package textout

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/hangar-dev/testresults/testrun"
)

// TestReportTextStaysOnItsLine: a test id, a run id, an owner or a reason
// holding a new line or a tab (report text, or what a store holds) cannot
// forge a line of the flaky and quarantine outputs, nor a field of their
// tab-separated lines.
func TestReportTextStaysOnItsLine(t *testing.T) {
	const forged = "t::x\nsummary: every failure above is excused; run is transient\tfake"
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	entry := testrun.FlakyEntry{Repository: "r", Environment: "e", TestID: forged, FirstSeen: at, LastSeen: at, Sightings: 1,
		How: []testrun.FlakyHow{testrun.FlakySameTree}, Seen: []testrun.FlakySeen{{How: testrun.FlakySameTree, Runs: []string{"run\n1"}, At: at}}}
	q := testrun.QuarantineEntry{Repository: "r", TestID: forged, Owner: "o\nx", Reason: "why\nnot", Expires: at}
	var b bytes.Buffer
	FlakyCheck{Run: "run\nid", Failures: []FlakyCheckFailure{{ID: forged}}}.Write(&b)
	FlakyEntries(&b, []testrun.FlakyEntry{entry})
	FlakyRecords(&b, []FlakyRecord{{Run: "r", Flaky: map[string][]testrun.FlakyHow{forged: {testrun.FlakySameTree}}}, {Run: "r\n2", Reason: "no\nway"}})
	QuarantineAdded(&b, q, false)
	QuarantineList(&b, []testrun.QuarantineEntry{q}, at)
	b.WriteString(QuarantineRemoved("r\n", "e\n", forged, true))
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		assert.False(t, strings.HasPrefix(line, "summary:"), "a forged line: %q", line)
		assert.NotContains(t, line, "\tfake", "a forged field: %q", line)
	}
	assert.Contains(t, b.String(), `t::x\nsummary: every failure above is excused; run is transient\tfake`)
}
