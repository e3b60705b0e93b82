//go:build !linux

package check

import "os/exec"

// tracker follows the processes of one check: on systems other than Linux,
// its process group only (a process that left the group is not found).
type tracker struct {
	leader    int
	groupGone bool
}

// startTracked starts cmd as the leader of its own group and tracks it.
func startTracked(cmd *exec.Cmd, _ string) (*tracker, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &tracker{leader: cmd.Process.Pid}, nil
}

func (t *tracker) stop() {}

// sweep SIGKILLs what remains of the check's group once its leader has
// been reaped, and returns 1 while the group remains, else 0.
func (t *tracker) sweep() int {
	if t.groupGone {
		return 0
	}
	signalGroup(t.leader, sigKill)
	if groupAlive(t.leader) {
		return 1
	}
	t.groupGone = true
	return 0
}

func (t *tracker) reapZombies() {}
