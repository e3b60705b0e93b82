package translate

import (
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// Bounds of what a span says about its runs, beside their events.
const (
	// MaxFailedIDs is how many failing test ids hangar.test.failed_ids
	// lists at most, in the order of the span's test.case events.
	MaxFailedIDs = 10
	// FailedIDLength is how many characters of each id it keeps.
	FailedIDLength = 256
	// StatusDescriptionLength is how many characters a span's status
	// description has at most.
	StatusDescriptionLength = 256
	// reasonLength is how many characters of an incomplete run's first
	// reason the status description quotes.
	reasonLength = 120
)

// summarize puts on s what a person reading the span first needs, without
// opening its events: the status (Error when a run went wrong), the counts
// and the first failing test ids. hangar.test.run.trusted and
// hangar.test.run.counted stay on the test.run events only: on a span they
// are the processor's to write.
func summarize(s *Span, plans []runPlan, cfg config) {
	s.Attrs = append(s.Attrs, summaryAttrs(plans)...)
	var problems []string
	for i := range plans {
		if d := runProblem(plans[i].run, cfg); d != "" {
			problems = append(problems, d)
		}
	}
	if len(problems) == 0 {
		return
	}
	desc := strings.Join(problems, " | ")
	if len(plans) > 1 {
		desc = fmt.Sprintf("%d of %d runs: %s", len(problems), len(plans), desc)
	}
	s.Status = codes.Error
	s.StatusDescription = head(desc, StatusDescriptionLength)
}

// summaryAttrs returns the span attributes that repeat its runs' test.run
// events. With one run: its test.suite.name, counts and
// hangar.test.complete. With several: test.suite.name only when they all
// ran the same command, each count the sum over the runs only when every
// run has counts (a partial sum would read as a total), and
// hangar.test.complete true only when every run is complete. Then
// hangar.test.failed_ids, when a test failed.
func summaryAttrs(plans []runPlan) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 9)
	command := plans[0].run.Command
	var sum testrun.Counts
	counted, complete := true, true
	for i := range plans {
		r := plans[i].run
		if r.Command != command {
			command = ""
		}
		complete = complete && r.Complete
		if r.Counts == nil {
			counted = false
			continue
		}
		sum.Total += r.Counts.Total
		sum.Passed += r.Counts.Passed
		sum.Failed += r.Counts.Failed
		sum.Errors += r.Counts.Errors
		sum.Skipped += r.Counts.Skipped
		sum.Flaky += r.Counts.Flaky
	}
	if command != "" {
		attrs = append(attrs, semconv.TestSuiteNameKey.String(valid(command)))
	}
	if counted {
		attrs = append(attrs,
			semconv.TestTotalKey.Int64(int64(sum.Total)),
			semconv.TestPassedKey.Int64(int64(sum.Passed)),
			semconv.TestFailedKey.Int64(int64(sum.Failed)),
			semconv.TestErrorsKey.Int64(int64(sum.Errors)),
			semconv.TestSkippedKey.Int64(int64(sum.Skipped)),
			semconv.TestFlakyCountKey.Int64(int64(sum.Flaky)),
		)
	}
	attrs = append(attrs, semconv.TestCompleteKey.Bool(complete))
	if ids := failedIDs(plans); len(ids) > 0 {
		attrs = append(attrs, semconv.TestFailedIDsKey.StringSlice(ids))
	}
	return attrs
}

// failedIDs returns the first MaxFailedIDs distinct ids of failing tests of
// plans, in the order of their test.case events, each clipped to
// FailedIDLength characters. Viewers sort an event's attributes by key,
// which puts test.case.name after the long hangar.test.message where a
// one-line view cuts it off; a span attribute is shown whole, and its
// order matches the events'.
func failedIDs(plans []runPlan) []string {
	var ids []string
	seen := make(map[string]bool)
	for i := range plans {
		for _, c := range plans[i].cases {
			if len(ids) == MaxFailedIDs {
				return ids
			}
			if !c.outcome.Failing() || seen[c.id] {
				continue
			}
			seen[c.id] = true
			ids = append(ids, head(valid(c.id), FailedIDLength))
		}
	}
	return ids
}

// runProblem says in a few words what went wrong with r, or "" when
// nothing did: "timed out", "aborted", "2 failed, 1 error of 40", "failed
// with exit code 2" (a failure no report explains), "incomplete: <its
// first reason>", joined with "; ".
func runProblem(r *testrun.Run, cfg config) string {
	var parts []string
	switch r.Status {
	case testrun.StatusTimedOut:
		parts = append(parts, "timed out")
	case testrun.StatusAborted:
		parts = append(parts, "aborted")
	}
	if c := r.Counts; c != nil && c.Failed+c.Errors > 0 {
		parts = append(parts, failing(c))
	} else if r.Status == testrun.StatusFailure {
		if r.ExitCode != nil {
			parts = append(parts, fmt.Sprintf("failed with exit code %d", *r.ExitCode))
		} else {
			parts = append(parts, "failed")
		}
	}
	if !r.Complete {
		p := "incomplete"
		if len(r.IncompleteReasons) > 0 {
			// A reason may quote a report; it is redacted like a message
			// and put on one line.
			reason := strings.Join(strings.Fields(valid(cfg.redactor.Redact(r.IncompleteReasons[0]))), " ")
			if reason != "" {
				p += ": " + head(reason, reasonLength)
			}
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// failing describes the failing counts of c: "2 failed of 40", "1 error of
// 40", "2 failed, 3 errors of 40".
func failing(c *testrun.Counts) string {
	var parts []string
	if c.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", c.Failed))
	}
	switch {
	case c.Errors == 1:
		parts = append(parts, "1 error")
	case c.Errors > 1:
		parts = append(parts, fmt.Sprintf("%d errors", c.Errors))
	}
	return fmt.Sprintf("%s of %d", strings.Join(parts, ", "), c.Total)
}
