//go:build unix

package check

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
)

// keepOnBrokenPipe makes a write to a closed pipe on standard output or
// standard error fail with EPIPE rather than end the process, which is what
// Go does by default: a reader that went away (`testresults run ... | head`)
// must not keep the run from being written, nor leave the check running.
// The signal is caught, not ignored, so the check still starts with its
// default action.
var keepOnBrokenPipe = sync.OnceFunc(func() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) })

// inOwnGroup starts the command as the leader of a new process group, so
// that a timeout or a signal reaches every process it started.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the process group led by pid. A group that has
// already ended is not an error.
func signalGroup(pid int, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		s = syscall.SIGTERM
	}
	if err := syscall.Kill(-pid, s); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

var (
	sigTerm os.Signal = syscall.SIGTERM
	sigKill os.Signal = syscall.SIGKILL
)

// exitCode is the exit code of an ended process as a shell reports it: its
// own code, or 128 plus the signal that ended it; signaled tells which.
func exitCode(ps *os.ProcessState) (code int, signaled bool) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), true
	}
	return ps.ExitCode(), false
}

// groupAlive reports whether a process of the group led by pid remains.
func groupAlive(pid int) bool {
	err := syscall.Kill(-pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
