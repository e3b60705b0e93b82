//go:build linux

package check

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// reaper is this process's state as a child subreaper: on while at least
// one check runs, so that a process a check orphans (a double fork, a
// daemon that left the check's group with setsid) is re-parented to this
// process rather than to init, and can be found and ended.
var reaper struct {
	mu     sync.Mutex
	users  int
	on     bool
	active map[int]*tracker // by leader pid
}

// tracker follows the processes of one check.
type tracker struct {
	leader      int
	leaderStart uint64 // clock ticks after boot
	self        int
	selfPgid    int
	selfSid     int
	// before are this process's children when the check started: never
	// the check's.
	before map[int]bool
	// marker is the HANGAR_TESTS_DIR entry of the check's environment,
	// which tells its processes from another check's.
	marker    []byte
	groupGone bool
	// claimed are the processes in this process's own group found to be
	// the check's (see adopted).
	claimed map[int]bool
}

// startTracked starts cmd as the leader of its own group and tracks it. On
// Linux this process is a child subreaper while a tracked check runs.
func startTracked(cmd *exec.Cmd, dir string) (*tracker, error) {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	self := os.Getpid()
	t := &tracker{self: self, selfPgid: syscall.Getpgrp(), marker: []byte(EnvTestsDir + "=" + dir)}
	if sid, err := getsid(0); err == nil {
		t.selfSid = sid
	}
	if reaper.users == 0 {
		_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
		reaper.on = errno == 0
		reaper.active = map[int]*tracker{}
	}
	reaper.users++
	t.before = map[int]bool{}
	for _, p := range children() {
		t.before[p.pid] = true
	}
	if err := cmd.Start(); err != nil {
		t.releaseLocked()
		return nil, err
	}
	t.leader = cmd.Process.Pid
	// The leader is reaped only by cmd.Wait, which has not begun: its stat
	// is there to be read.
	if p, ok := readProc(t.leader); ok {
		t.leaderStart = p.start
	}
	reaper.active[t.leader] = t
	return t, nil
}

func getsid(pid int) (int, error) {
	sid, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(sid), nil
}

// stop ends the tracking; the last check to end turns the subreaper off.
func (t *tracker) stop() {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	delete(reaper.active, t.leader)
	t.releaseLocked()
}

func (t *tracker) releaseLocked() {
	reaper.users--
	if reaper.users == 0 && reaper.on {
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0) // best effort: no check is tracked any more
		reaper.on = false
	}
}

// sweep SIGKILLs what remains of the check once its leader has been
// reaped: its group, and the processes re-parented to this process that
// are the check's (see adopted), with their own group or session. It reaps
// those that have ended and returns how many remain (the group counts as
// one).
func (t *tracker) sweep() int {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	left := 0
	if !t.groupGone {
		_ = signalGroup(t.leader, sigKill) // a group still alive is counted as left below
		if groupAlive(t.leader) {
			left++
		} else {
			t.groupGone = true
		}
	}
	for _, p := range t.adopted() {
		if p.state != 'Z' {
			_ = syscall.Kill(p.pid, syscall.SIGKILL) // what survives is counted as left below
			if p.pgid > 1 && p.pgid != t.selfPgid && (p.pgid == p.pid || p.sid != t.selfSid) {
				// A group or session the check made: all of it is the
				// check's.
				_ = syscall.Kill(-p.pgid, syscall.SIGKILL) // best effort, as above
			}
		}
		if reap(p.pid) {
			delete(t.claimed, p.pid) // the pid may be another process's next
		} else {
			left++
		}
	}
	return left
}

// reapZombies reaps the check's processes re-parented to this process that
// have ended, so that its group can be seen to end.
func (t *tracker) reapZombies() {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	for _, p := range t.adopted() {
		if p.state == 'Z' && reap(p.pid) {
			delete(t.claimed, p.pid)
		}
	}
}

// reap reaps the ended child pid, without waiting; it reports whether pid
// is no longer a child of this process.
func reap(pid int) bool {
	var ws syscall.WaitStatus
	for {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return true // ECHILD: not ours (any more)
		}
		return got == pid
	}
}

// adopted lists the children of this process that are the check's, left
// behind by it: started after its leader (and not children from before),
// not the leader (cmd.Wait reaps it), not another running check's (its
// leader, its group, or its HANGAR_TESTS_DIR), and, in this process's own
// group, only those whose environment holds the check's HANGAR_TESTS_DIR:
// other code here starts processes in this group too, but a check's
// process may also move into it (setpgid) to pass for one of them.
// Without the subreaper they would have been re-parented to init. The
// caller holds reaper.mu.
func (t *tracker) adopted() []proc {
	if !reaper.on {
		return nil
	}
	var out []proc
next:
	for _, p := range children() {
		if p.ppid != t.self || p.pid == t.leader || t.before[p.pid] || p.start < t.leaderStart {
			continue
		}
		if p.pgid == t.selfPgid && !t.claimed[p.pid] {
			// A zombie's environment cannot be read: it is known as the
			// check's only if it was claimed while it ran.
			if env, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/environ"); err != nil || !hasEntry(env, t.marker) {
				continue
			}
			if t.claimed == nil {
				t.claimed = map[int]bool{}
			}
			t.claimed[p.pid] = true
		}
		for leader, o := range reaper.active {
			if o == t {
				continue
			}
			if p.pid == leader || p.pgid == leader {
				continue next
			}
			if env, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/environ"); err == nil && hasEntry(env, o.marker) {
				continue next
			}
		}
		out = append(out, p)
	}
	return out
}

// hasEntry reports whether the NUL-separated environment env holds entry.
func hasEntry(env, entry []byte) bool {
	for _, e := range bytes.Split(env, []byte{0}) {
		if bytes.Equal(e, entry) {
			return true
		}
	}
	return false
}

// proc is what /proc/<pid>/stat says of a process.
type proc struct {
	pid, ppid, pgid, sid int
	state                byte
	start                uint64
}

// children lists the children of this process: those it started and
// those re-parented to it as a subreaper. It reads the children files of
// this process's threads (a child is listed under the thread that forked
// it, an orphan under the thread it was re-parented to), not the stat of
// every process of the system; without those files (a kernel built
// without CONFIG_PROC_CHILDREN) it scans every process.
func children() []proc {
	if !childrenFiles() {
		return childrenByScan()
	}
	pids, ok := childPids()
	if !ok {
		return childrenByScan()
	}
	self := os.Getpid()
	var out []proc
	for _, pid := range pids {
		// A child reaped since it was listed, its pid used again, is
		// not ours: its stat says so.
		if p, ok := readProc(pid); ok && p.ppid == self {
			out = append(out, p)
		}
	}
	return out
}

// childrenFiles reports whether the kernel lists a thread's children in
// /proc/<pid>/task/<tid>/children.
var childrenFiles = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children")
	return err == nil
})

// childPids returns the pids listed in the children files of every thread
// of this process, each once, and false if the threads cannot be listed.
// A thread that ends in the meantime is skipped: its children are
// re-parented to another thread of the process.
func childPids() ([]int, bool) {
	tasks, err := readDirNames("/proc/self/task")
	if err != nil {
		return nil, false
	}
	var pids []int
	seen := map[int]bool{}
	var buf bytes.Buffer
	for _, task := range tasks {
		buf.Reset()
		if !readChildren("/proc/self/task/"+task+"/children", &buf) {
			continue
		}
		for _, f := range bytes.Fields(buf.Bytes()) {
			pid, err := strconv.Atoi(string(f))
			if err == nil && pid > 0 && !seen[pid] {
				seen[pid] = true
				pids = append(pids, pid)
			}
		}
	}
	return pids, true
}

// readChildren reads a children file into buf, with room for a few
// hundred pids in one read: the kernel walks the list afresh on each read,
// so fewer reads are fewer chances to miss a child that ends meanwhile.
func readChildren(name string, buf *bytes.Buffer) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	buf.Grow(16 << 10)
	_, err = buf.ReadFrom(f)
	return err == nil
}

func readDirNames(name string) ([]string, error) {
	d, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// childrenByScan lists the children of this process by reading the stat
// of every process of the system.
func childrenByScan() []proc {
	names, err := readDirNames("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []proc
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		if p, ok := readProc(pid); ok && p.ppid == self {
			out = append(out, p)
		}
	}
	return out
}

// readProc reads /proc/<pid>/stat: "pid (comm) state ppid pgrp session ...
// starttime" (starttime is the 22nd field; comm may hold spaces and
// parentheses, so the fields are counted from the last ')').
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return proc{}, false
	}
	p := proc{pid: pid, state: f[0][0]}
	var e1, e2, e3, e4 error
	p.ppid, e1 = strconv.Atoi(string(f[1]))
	p.pgid, e2 = strconv.Atoi(string(f[2]))
	p.sid, e3 = strconv.Atoi(string(f[3]))
	p.start, e4 = strconv.ParseUint(string(f[19]), 10, 64)
	if errors.Join(e1, e2, e3, e4) != nil {
		return proc{}, false
	}
	return p, true
}
