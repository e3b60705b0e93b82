package testrun

import (
	"errors"
	"fmt"
	"strings"
)

// MaxExitCode is the largest exit code a process can report.
const MaxExitCode = 255

// ErrInvalidMetadata is returned (wrapped) by CheckExitCode and CheckGrade.
var ErrInvalidMetadata = errors.New("testrun: invalid run metadata")

// StatusForExitCode is the status of a check that ended on its own with
// code: success for 0, failure otherwise. A check ended by a timeout is
// StatusTimedOut and one ended by a signal StatusAborted, whatever its code.
func StatusForExitCode(code int) Status {
	if code == 0 {
		return StatusSuccess
	}
	return StatusFailure
}

// CheckExitCode reports, wrapping ErrInvalidMetadata, an exit code outside
// 0..MaxExitCode.
func CheckExitCode(code int) error {
	if code < 0 || code > MaxExitCode {
		return fmt.Errorf("%w: exit code %d is not between 0 and %d", ErrInvalidMetadata, code, MaxExitCode)
	}
	return nil
}

// CheckGrade reports, wrapping ErrInvalidMetadata, a grade that cannot go
// with kind: a grade is only for KindGrader and is never blank. An empty
// grade (none given) is always accepted.
func CheckGrade(kind Kind, grade string) error {
	if grade == "" {
		return nil
	}
	if kind != KindGrader {
		return fmt.Errorf("%w: a grade is only for kind %s", ErrInvalidMetadata, KindGrader)
	}
	if strings.TrimSpace(grade) == "" {
		return fmt.Errorf("%w: the grade is blank", ErrInvalidMetadata)
	}
	return nil
}
