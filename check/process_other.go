//go:build !unix

package check

import (
	"os"
	"os/exec"
)

func inOwnGroup(*exec.Cmd) {}

// keepOnBrokenPipe does nothing where no signal ends a process that
// writes to a closed pipe.
func keepOnBrokenPipe() {}

// signalGroup ends the process: without process groups, only the process
// itself is reached.
func signalGroup(pid int, _ os.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

var (
	sigTerm = os.Kill
	sigKill = os.Kill
)

func exitCode(ps *os.ProcessState) (int, bool) { return ps.ExitCode(), false }

func groupAlive(int) bool { return false }
