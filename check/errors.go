package check

import "errors"

var (
	// ErrStart means the command could not be started (not found, not
	// executable). Run still returns the Result, whose run says why.
	ErrStart = errors.New("check: the command could not be started")
	// ErrReportDir means the report folder cannot be used (it holds files of
	// something other than a run, or cannot be made).
	ErrReportDir = errors.New("check: report folder")
	// ErrNoCommand means no command was given.
	ErrNoCommand = errors.New("check: no command")
)

// ErrReplaced means the report folder Run made was replaced or removed after it
// was made (by the check: a link to another folder, another folder of the
// same name); nothing is written where its path now leads.
var ErrReplaced = errors.New("check: the report folder was replaced")

// IsUsage reports whether err is a mistake in how the check was asked for
// (no command or an empty one, an unknown HANGAR_TEST_REPORTS value, a
// report folder that cannot be used) rather than a failure of the check:
// ErrNoCommand, ErrMode or ErrReportDir. A command exits 2 (usage) for it.
func IsUsage(err error) bool {
	return errors.Is(err, ErrNoCommand) || errors.Is(err, ErrMode) || errors.Is(err, ErrReportDir)
}
