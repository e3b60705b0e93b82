package testrun

import (
	"fmt"
	"sort"
)

// Builder merges the executions and coverage of a run's reports into a Run.
// Add every report in a stable order (the order decides which failures are
// listed first); then call Build. A Builder is not safe for concurrent use.
type Builder struct {
	cfg config

	cases   map[string]*caseState
	order   []string // ids in order of first appearance
	reports []ReportInfo
	reasons []string
	tests   bool // a test report was read whole

	cov      covSum
	hasCov   bool
	covFiles map[string]*FileCoverage
}

// scopeState is the retry history of one test id inside one suite.
type scopeState struct {
	scope   string
	outcome Outcome
	message string
	passed  bool // some attempt passed
	failed  bool // some attempt failed or errored
	flaky   bool // the runner reported a retry that passed
}

// caseState is a test id's outcome merged over every suite it ran in. Most
// ids run in one suite, so the suites are a short list, not a map.
type caseState struct {
	scopes []scopeState
}

func (c *caseState) scope(name string) *scopeState {
	for i := range c.scopes {
		if c.scopes[i].scope == name {
			return &c.scopes[i]
		}
	}
	c.scopes = append(c.scopes, scopeState{scope: name})
	return &c.scopes[len(c.scopes)-1]
}

type covSum struct {
	// stated totals of Cobertura-like reports
	covered, valid      int64
	rate                *float64
	statedReports       int
	statedWithoutCounts int
}

// NewBuilder returns an empty Builder.
func NewBuilder(opts ...Option) *Builder {
	return &Builder{
		cfg:   newConfig(opts),
		cases: make(map[string]*caseState),
	}
}

// AddReport adds one report file: its description, the test executions it
// holds (nil for a coverage report) and the coverage it states (nil for a
// test report). A report is read whole or not at all: one whose info.Error
// is set and that is not Skipped makes the run incomplete, with the error
// as the reason, and adds nothing else (no cases, counts, coverage or flaky
// ids, whatever execs and cov hold). A Skipped file is only listed.
func (b *Builder) AddReport(info ReportInfo, execs []Execution, cov *CoverageReport) {
	b.reports = append(b.reports, info)
	if info.Skipped {
		return
	}
	if info.Error != "" {
		b.Incomplete(fmt.Sprintf("%s: %s", info.Path, info.Error))
		return
	}
	if info.Tests != nil || len(execs) > 0 {
		b.tests = true
	}
	for i := range execs {
		b.addExecution(&execs[i])
	}
	if cov != nil {
		b.addCoverage(cov)
	}
}

// Incomplete marks the run incomplete with a reason.
func (b *Builder) Incomplete(reason string) {
	b.reasons = append(b.reasons, reason)
}

func (b *Builder) addExecution(e *Execution) {
	if e.ID == "" || !e.Outcome.Valid() {
		b.Incomplete(fmt.Sprintf("a test case with id %q and outcome %q cannot be read", e.ID, e.Outcome))
		return
	}
	c, ok := b.cases[e.ID]
	if !ok {
		c = &caseState{scopes: make([]scopeState, 0, 1)}
		b.cases[e.ID] = c
		b.order = append(b.order, e.ID)
	}
	s := c.scope(e.Scope)
	// Retries inside one suite: the last outcome wins.
	s.outcome = e.Outcome
	if e.Outcome.Failing() {
		s.message = e.Message
		s.failed = true
	} else {
		s.message = ""
	}
	if e.Outcome == OutcomePassed {
		s.passed = true
	}
	if e.RunnerFlaky {
		s.flaky = true
	}
}

// merged is the final outcome of one id: the worst over its configurations.
func (c *caseState) merged() (Outcome, string, bool) {
	var out Outcome
	var msg string
	flaky := false
	for i := range c.scopes {
		s := &c.scopes[i]
		if i == 0 || s.outcome.Severity() > out.Severity() {
			out, msg = s.outcome, s.message
		}
		// Within one suite a test that both failed and passed is flaky;
		// differing outcomes across suites do not make it flaky.
		if s.flaky || (s.failed && s.passed) {
			flaky = true
		}
	}
	return out, msg, flaky
}

func (b *Builder) addCoverage(cov *CoverageReport) {
	b.hasCov = true
	if cov.LineRate != nil || cov.LinesCovered != nil || cov.LinesValid != nil {
		b.cov.statedReports++
		if cov.LinesCovered != nil && cov.LinesValid != nil {
			b.cov.covered += *cov.LinesCovered
			b.cov.valid += *cov.LinesValid
		} else {
			b.cov.statedWithoutCounts++
		}
		if cov.LineRate != nil {
			r := *cov.LineRate
			b.cov.rate = &r
		}
	}
	for name, f := range cov.Files {
		if f == nil {
			continue
		}
		if b.covFiles == nil {
			b.covFiles = make(map[string]*FileCoverage)
		}
		dst, ok := b.covFiles[name]
		if !ok {
			dst = &FileCoverage{}
			b.covFiles[name] = dst
		}
		dst.Merge(f)
	}
}

func (b *Builder) coverage() *Coverage {
	if !b.hasCov {
		return nil
	}
	var covered, valid int64
	for _, f := range b.covFiles {
		if len(f.Lines) > 0 {
			for _, hit := range f.Lines {
				valid++
				if hit {
					covered++
				}
			}
			continue
		}
		valid += f.Found
		covered += f.Hit
	}
	known := b.cov.statedWithoutCounts == 0
	covered += b.cov.covered
	valid += b.cov.valid

	c := &Coverage{}
	// One report that states its totals is taken as it states them.
	if b.cov.statedReports == 1 && len(b.covFiles) == 0 {
		c.LineRate = b.cov.rate
		if known {
			c.LinesCovered, c.LinesValid = &covered, &valid
			if c.LineRate == nil && valid > 0 {
				r := float64(covered) / float64(valid)
				c.LineRate = &r
			}
		}
		return c
	}
	if !known {
		// A report stated a rate but not the lines behind it: a sum is unknown.
		return c
	}
	c.LinesCovered, c.LinesValid = &covered, &valid
	if valid > 0 {
		r := float64(covered) / float64(valid)
		c.LineRate = &r
	}
	return c
}

// Build returns the run the added reports describe. Only the result fields
// are set; the caller fills in the run's identity and metadata.
func (b *Builder) Build() *Run {
	r := &Run{
		Complete:          len(b.reasons) == 0,
		IncompleteReasons: append([]string(nil), b.reasons...),
		Reports:           append([]ReportInfo(nil), b.reports...),
		Coverage:          b.coverage(),
	}
	if !b.tests {
		if len(b.reasons) == 0 && !b.hasCov {
			r.Complete = false
			r.IncompleteReasons = append(r.IncompleteReasons, "no test report was read")
		}
		return r
	}

	counts := &Counts{}
	outcomes := make(map[string]Outcome, len(b.order))
	var failing, flakyIDs []string
	for _, id := range b.order {
		out, msg, flaky := b.cases[id].merged()
		outcomes[id] = out
		counts.Total++
		switch out {
		case OutcomePassed:
			counts.Passed++
		case OutcomeFailed:
			counts.Failed++
		case OutcomeError:
			counts.Errors++
		case OutcomeSkipped:
			counts.Skipped++
		}
		if flaky {
			counts.Flaky++
			flakyIDs = append(flakyIDs, id)
		}
		if out.Failing() {
			failing = append(failing, id)
			if len(r.Failures) < b.cfg.maxFailures {
				r.Failures = append(r.Failures, Failure{
					ID:      id,
					Outcome: out,
					Message: Clip(b.cfg.redactor.Redact(msg), b.cfg.maxMessage),
					Flaky:   flaky,
				})
			}
		}
	}
	r.Counts = counts
	sort.Strings(flakyIDs)
	r.Flaky = flakyIDs
	r.Cases = keepCases(b.order, outcomes, failing, flakyIDs, b.cfg.maxCases)
	return r
}

// keepCases keeps at most n outcomes: failing ids first, then flaky ones,
// then the rest in the order the reports list them.
func keepCases(order []string, outcomes map[string]Outcome, failing, flaky []string, n int) map[string]Outcome {
	if len(order) <= n {
		return outcomes
	}
	kept := make(map[string]Outcome, n)
	for _, group := range [][]string{failing, flaky, order} {
		for _, id := range group {
			if len(kept) >= n {
				return kept
			}
			kept[id] = outcomes[id]
		}
	}
	return kept
}
