//go:build linux

package check

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChildrenOfEveryThread: a child is listed under the thread that forked
// it, so children reads the children of every thread of the process, not
// only the main thread's; what it finds, a scan of every process finds too.
func TestChildrenOfEveryThread(t *testing.T) {
	const n = 4
	var (
		wg      sync.WaitGroup
		started sync.WaitGroup // every goroutine holds its own thread
		release = make(chan struct{})
		tids    = make([]int, n)
		cmds    = make([]*exec.Cmd, n)
		errs    = make([]error, n)
	)
	started.Add(n)
	for i := range n {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tids[i] = syscall.Gettid()
			started.Done()
			started.Wait() // no two of them share a thread now
			cmds[i] = exec.Command("sleep", "60")
			errs[i] = cmds[i].Start()
			<-release
		})
	}
	started.Wait()
	close(release)
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range cmds {
			if c != nil && c.Process != nil {
				c.Process.Kill()
				c.Wait()
			}
		}
	})
	for _, err := range errs {
		require.NoError(t, err)
	}
	distinct := map[int]bool{}
	for _, tid := range tids {
		distinct[tid] = true
	}
	require.Len(t, distinct, n, "the children were forked by %d threads", n)

	listed := pidSet(children())
	scanned := pidSet(childrenByScan())
	for _, c := range cmds {
		assert.True(t, listed[c.Process.Pid], "children lists %d", c.Process.Pid)
		assert.True(t, scanned[c.Process.Pid], "the scan finds %d", c.Process.Pid)
	}
	if childrenFiles() {
		pids, ok := childPids()
		require.True(t, ok)
		for _, c := range cmds {
			assert.Contains(t, pids, c.Process.Pid, "a thread's children file lists it")
		}
	}
}

func pidSet(ps []proc) map[int]bool {
	s := map[int]bool{}
	for _, p := range ps {
		s[p.pid] = true
	}
	return s
}
