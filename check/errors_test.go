package check

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIsUsage: no command (or an empty one), an unknown mode and an
// unusable report folder are usage mistakes however deeply wrapped; a check
// that could not start, an interrupted pair or any other error is not.
func TestIsUsage(t *testing.T) {
	_, modeErr := ParseMode("sometimes")
	for _, err := range []error{modeErr, ErrReportDir, ErrNoCommand, fmt.Errorf("run: %w", fmt.Errorf("out: %w", ErrReportDir))} {
		assert.True(t, IsUsage(err), "%v", err)
	}
	for _, err := range []error{nil, ErrStart, ErrInterrupted, errors.New("check: report folder")} {
		assert.False(t, IsUsage(err), "%v", err)
	}
}
