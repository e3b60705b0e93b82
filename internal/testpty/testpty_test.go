package testpty

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpen: what a process writes to the terminal side is read on the
// other, and the terminal side is a terminal (a character device).
func TestOpen(t *testing.T) {
	master, slave, err := Open()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no pseudo-terminal here")
	}
	require.NoError(t, err)
	defer master.Close()
	fi, err := slave.Stat()
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeCharDevice, "a character device")

	cmd := exec.Command("printf", `\033[31mred\033[0m\n`)
	cmd.Stdout = slave
	require.NoError(t, cmd.Start())
	require.NoError(t, slave.Close())
	out, err := ReadAll(master)
	require.NoError(t, err)
	require.NoError(t, cmd.Wait())
	assert.True(t, strings.HasPrefix(out, "\x1b[31mred\x1b[0m"), "%q", out)
}
