package testrun

import (
	"errors"
	"fmt"
)

// Check checks what d says before it describes a run: an exit code between
// 0 and MaxExitCode, a known status, and an end not before the start. Its
// errors are worded in parse's flags (--exit-code, --status, --started-at,
// --ended-at), which give a Description its values.
func (d Description) Check() error {
	switch {
	case d.ExitCode != nil && CheckExitCode(*d.ExitCode) != nil:
		return fmt.Errorf("--exit-code %d is not between 0 and %d", *d.ExitCode, MaxExitCode)
	case d.Status != "" && !d.Status.Valid():
		return fmt.Errorf("unknown --status %q (want success, failure, timed_out or aborted)", d.Status)
	case !d.StartedAt.IsZero() && !d.EndedAt.IsZero() && d.EndedAt.Before(d.StartedAt):
		return errors.New("--ended-at is before --started-at")
	}
	return nil
}
