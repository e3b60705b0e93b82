package testrun

import "time"

// Description is what a check's caller says of the run its reports make
// (parse's flags): the fields a report cannot know. The zero value says
// nothing but lets the id be derived.
type Description struct {
	// ID is the run's id; "" derives it from the reports (DeriveID).
	ID         string
	Kind       Kind
	Grade      string
	Commit     string
	Command    string
	Tree       string
	AgentRunID string
	StartedAt  time.Time
	EndedAt    time.Time
	// ExitCode is the check's own exit code, nil when not given; it sets
	// the status (StatusForExitCode) unless Status is set.
	ExitCode *int
	// Status is how the check ended; "" leaves it to ExitCode, else to
	// what the reports made of it.
	Status Status
}

// Describe sets d on run: its id (else derived from its reports), kind,
// grade, commit, command (with its secrets redacted by the default
// redactor: a token given on the command line is not evidence), tree,
// agent run, times, exit code and status. The other fields stay as the
// reports made them.
func (d Description) Describe(run *Run) {
	run.ID = d.ID
	if run.ID == "" {
		run.ID = DeriveID(run.Reports)
	}
	run.Kind = d.Kind
	run.Grade = d.Grade
	run.Commit = d.Commit
	run.Command = DefaultRedactor().Redact(d.Command)
	run.Tree = d.Tree
	run.AgentRunID = d.AgentRunID
	run.StartedAt, run.EndedAt = d.StartedAt, d.EndedAt
	if d.ExitCode != nil {
		code := *d.ExitCode
		run.ExitCode = &code
		run.Status = StatusForExitCode(code)
	}
	if d.Status != "" {
		run.Status = d.Status
	}
}
