package textout

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

// FlakyRecord is what `flaky record` did with one run
// (testrun.FlakyRecord), the command's JSON line.
type FlakyRecord = testrun.FlakyRecord

// FlakyRecords writes one line a run.
func FlakyRecords(w io.Writer, lines []FlakyRecord) {
	for _, l := range lines {
		if !l.Recorded {
			fmt.Fprintf(w, "%s: not recorded: %s\n", term.EscapeLine(l.Run), term.EscapeLine(l.Reason))
			continue
		}
		ids := make([]string, 0, len(l.Flaky))
		for id := range l.Flaky {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		fmt.Fprintf(w, "%s: %d outcomes observed, %d flaky%s\n", term.EscapeLine(l.Run), l.Observed, len(ids), ListTail(ids))
	}
}

// FlakyCheck is the answer of `flaky check` for one run: which of its
// failures the list excuses (testrun.Excuse), each with its entry. It is
// also the command's JSON form.
type FlakyCheck struct {
	Run       string              `json:"run"`
	JobStart  time.Time           `json:"job_start"`
	Transient bool                `json:"transient"`
	Unknown   string              `json:"unknown_reason,omitempty"`
	Failures  []FlakyCheckFailure `json:"failures"`
}

// FlakyCheckFailure is one failure of the run, its entry on the list (nil
// when none) and whether it is excused.
type FlakyCheckFailure struct {
	ID      string              `json:"id"`
	Excused bool                `json:"excused"`
	Entry   *testrun.FlakyEntry `json:"entry"`
}

// Failed reports whether the check fails: a failure the list does not
// excuse, or failures not known whole.
func (c FlakyCheck) Failed() bool {
	return c.Unknown != "" || (len(c.Failures) > 0 && !c.Transient)
}

// Write writes the answer: the run's state, then each failure and why it is
// or is not excused.
func (c FlakyCheck) Write(w io.Writer) {
	switch {
	case c.Unknown != "":
		fmt.Fprintf(w, "%s: cannot tell: %s\n", term.EscapeLine(c.Run), term.EscapeLine(c.Unknown))
		return
	case len(c.Failures) == 0:
		fmt.Fprintf(w, "%s: no failures\n", term.EscapeLine(c.Run))
		return
	case c.Transient:
		fmt.Fprintf(w, "%s: transient: every failure is on the flaky list\n", term.EscapeLine(c.Run))
	default:
		fmt.Fprintf(w, "%s: failed\n", term.EscapeLine(c.Run))
	}
	for _, f := range c.Failures {
		mark := "not excused"
		if f.Excused {
			mark = "excused (flaky since " + f.Entry.FirstSeen.Format(time.RFC3339) + ")"
		} else if f.Entry != nil {
			mark = "not excused (on the list only since " + f.Entry.FirstSeen.Format(time.RFC3339) + ", or expired)"
		}
		fmt.Fprintf(w, "  %s: %s\n", term.EscapeLine(f.ID), mark)
	}
}

// FlakyEntries writes the entries of the list, one tab-separated line each.
func FlakyEntries(w io.Writer, entries []testrun.FlakyEntry) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "no flaky tests")
		return
	}
	for _, e := range entries {
		fmt.Fprintln(w, flakyEntryLine(e))
	}
}

// FlakyScore is the part of a test's flakiness score (testrun.Flakiness)
// that `flaky list` shows. It informs; it never excuses a failure.
type FlakyScore struct {
	FailureRate    float64 `json:"failure_rate"`
	Evidence       int     `json:"evidence"`
	FlipRate       float64 `json:"flip_rate"`
	Flips          int     `json:"flips"`
	FlipWindowRuns int     `json:"flip_window_runs"`
}

// ScoreOf is the shown part of f.
func ScoreOf(f testrun.Flakiness) *FlakyScore {
	return &FlakyScore{FailureRate: f.FailureRate, Evidence: f.Evidence, FlipRate: f.FlipRate, Flips: f.Flips, FlipWindowRuns: f.FlipWindowRuns}
}

// String is the score in a few words: "fails 31% of 12 · 7 flips/50"; a
// score with no evidence says so rather than show the prior's 50%.
func (s *FlakyScore) String() string {
	if s == nil {
		return "no score"
	}
	fails := "no failure-rate evidence"
	if s.Evidence > 0 {
		fails = fmt.Sprintf("fails %.0f%% of %d", s.FailureRate*100, s.Evidence)
	}
	return fmt.Sprintf("%s · %d flips/%d", fails, s.Flips, s.FlipWindowRuns)
}

// FlakyListEntry is an entry of the list with its test's flakiness score
// (nil when it was not scored). It is also the JSON of `flaky list`: the
// entry's fields and a score object.
type FlakyListEntry struct {
	testrun.FlakyEntry
	Score *FlakyScore `json:"score"`
}

// FlakyList writes the entries of the list, one tab-separated line each,
// the last column the test's score.
func FlakyList(w io.Writer, entries []FlakyListEntry) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "no flaky tests")
		return
	}
	for _, e := range entries {
		fmt.Fprintf(w, "%s\t%s\n", flakyEntryLine(e.FlakyEntry), e.Score)
	}
}

func flakyEntryLine(e testrun.FlakyEntry) string {
	how := make([]string, len(e.How))
	for i, h := range e.How {
		how[i] = string(h)
	}
	var runs []string
	seen := map[string]bool{}
	for _, s := range e.Seen {
		for _, r := range s.Runs {
			if !seen[r] {
				seen[r] = true
				runs = append(runs, r)
			}
		}
	}
	for i := range runs {
		runs[i] = term.EscapeLine(runs[i])
	}
	return fmt.Sprintf("%s\t%s\t%s\tfirst %s\tlast %s\t%s\t%d sightings\truns %s", term.EscapeLine(e.Repository), term.EscapeLine(e.Environment), term.EscapeLine(e.TestID),
		e.FirstSeen.Format(time.RFC3339), e.LastSeen.Format(time.RFC3339), strings.Join(how, ","), e.Sightings, strings.Join(runs, ","))
}

// FlakySummary writes the repositories with the most flaky tests, each
// with its worst test.
func FlakySummary(w io.Writer, sum []testrun.FlakyRepoSummary) {
	if len(sum) == 0 {
		fmt.Fprintln(w, "no flaky tests")
	}
	for _, s := range sum {
		fmt.Fprintf(w, "%-40s %5d flaky  worst: %s (%s, seen %d times, last %s)\n", s.Repository, s.Tests,
			s.Worst.TestID, s.Worst.Environment, s.Worst.Sightings, s.Worst.LastSeen.Format(time.RFC3339))
	}
}

// FlakyListEntries pairs each entry with its score (testrun.ScoreEntries:
// nil when it has none).
func FlakyListEntries(entries []testrun.FlakyEntry, scores []*testrun.Flakiness) []FlakyListEntry {
	out := make([]FlakyListEntry, len(entries))
	for i, e := range entries {
		out[i].FlakyEntry = e
		if i < len(scores) && scores[i] != nil {
			out[i].Score = ScoreOf(*scores[i])
		}
	}
	return out
}

// NewFlakyCheck is the answer for run of the excusal e
// (testrun.ExcuseByEntries), each failure with its entry of entries.
func NewFlakyCheck(run string, jobStart time.Time, e testrun.Excusal, entries map[string]testrun.FlakyEntry) FlakyCheck {
	c := FlakyCheck{Run: run, JobStart: jobStart, Transient: e.Transient, Unknown: e.Unknown, Failures: []FlakyCheckFailure{}}
	for _, f := range e.Failures {
		fc := FlakyCheckFailure{ID: f.ID, Excused: f.Excused}
		if en, ok := entries[f.ID]; ok {
			fc.Entry = &en
		}
		c.Failures = append(c.Failures, fc)
	}
	return c
}
