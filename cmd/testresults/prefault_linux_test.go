package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestPrefaultMapsCode: as it starts, the binary has the kernel map all of
// its code and read-only data into its page table at once
// (internal/prefault), instead of page by page as they are touched. Read
// off a running `testresults mcp`'s /proc/PID/smaps: each such mapping of
// the binary is resident whole. With TESTRESULTS_PREFAULT=0 the figure is
// only logged: how much the faults map around what they touch is the
// kernel's choice.
func TestPrefaultMapsCode(t *testing.T) {
	page, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	require.NoError(t, err)
	err = syscall.Madvise(page, 22) // MADV_POPULATE_READ
	_ = syscall.Munmap(page)
	if err != nil {
		// EINVAL before Linux 5.14; a sandbox may refuse it otherwise.
		t.Skipf("MADV_POPULATE_READ is refused here (%v): the binary starts without it", err)
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("the prefault is built for amd64 and arm64 only, not %s", runtime.GOARCH)
	}

	bin := builtBinary(t)
	// Only a binary in the page cache is mapped at once: read it all, as
	// the first start would.
	_, err = os.ReadFile(bin)
	require.NoError(t, err)

	for _, e := range startedMappings(t, bin, "1") {
		t.Logf("with the prefault: %s %d of %d kB resident", e.perm, e.rss, e.size)
		require.Equal(t, e.size, e.rss, "with the prefault, the %s mapping is resident whole", e.perm)
	}
	for _, e := range startedMappings(t, bin, "0") {
		t.Logf("without: %s %d of %d kB resident", e.perm, e.rss, e.size)
	}
}

// TestPrefaultColdStart: a binary that is not in the page cache is not
// populated, so that a cold start reads no more of it from disk than its
// page faults ask for. The binary is copied and the copy's pages dropped
// from the cache (POSIX_FADV_DONTNEED), where the file system allows it.
func TestPrefaultColdStart(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("the prefault is built for amd64 and arm64 only, not %s", runtime.GOARCH)
	}
	data, err := os.ReadFile(builtBinary(t))
	require.NoError(t, err)
	cold := filepath.Join(t.TempDir(), "testresults")
	f, err := os.OpenFile(cold, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = f.Write(data)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	require.NoError(t, unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
	require.NoError(t, f.Close())
	if in := residentShare(t, cold); in > 0.1 {
		t.Skipf("the file system keeps %.0f%% of the file in memory after POSIX_FADV_DONTNEED (tmpfs does)", in*100)
	}

	entries := startedMappings(t, cold, "1")
	whole := 0
	for _, e := range entries {
		t.Logf("cold start: %s %d of %d kB resident", e.perm, e.rss, e.size)
		if e.rss == e.size {
			whole++
		}
	}
	require.Less(t, whole, len(entries), "a cold start populated every read-only mapping of the binary")
}

// startedMappings starts `bin mcp` with TESTRESULTS_PREFAULT=prefault and,
// once it has answered the MCP handshake, returns the r-xp and r--p
// mappings of bin in its /proc/PID/smaps.
func startedMappings(t *testing.T, bin, prefault string) []smapsEntry {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--store", filepath.Join(dir, "runs.db"))
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "TESTRESULTS_PREFAULT=" + prefault}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer cs.Close()
	smaps, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", cmd.Process.Pid))
	require.NoError(t, err)
	entries, err := readOnlyMappings(smaps, bin)
	require.NoError(t, err)
	return entries
}

// residentShare is the share of path's pages in the page cache, by
// mincore(2), which tells the truth to the file's owner.
func residentShare(t *testing.T, path string) float64 {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	st, err := f.Stat()
	require.NoError(t, err)
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	require.NoError(t, err)
	defer func() { _ = unix.Munmap(m) }()
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	in := 0
	for _, v := range vec {
		in += int(v & 1)
	}
	return float64(in) / float64(len(vec))
}

// smapsEntry is one mapping of a /proc/PID/smaps: its permissions and its
// resident and whole sizes in kB.
type smapsEntry struct {
	perm      string
	rss, size int64
}

// readOnlyMappings returns the r-xp and r--p mappings of path in a
// /proc/PID/smaps; an error when there is no r-xp one.
func readOnlyMappings(smaps []byte, path string) ([]smapsEntry, error) {
	var entries []smapsEntry
	var cur *smapsEntry
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 2 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			cur = nil
			if len(f) >= 6 && f[5] == path && (f[1] == "r-xp" || f[1] == "r--p") {
				entries = append(entries, smapsEntry{perm: f[1]})
				cur = &entries[len(entries)-1]
			}
		case cur != nil && len(f) == 3 && (f[0] == "Rss:" || f[0] == "Size:"):
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return nil, err
			}
			if f[0] == "Rss:" {
				cur.rss = n
			} else {
				cur.size = n
			}
		}
	}
	for _, e := range entries {
		if e.perm == "r-xp" {
			return entries, nil
		}
	}
	return nil, errors.New("no executable mapping of " + path + " in smaps")
}
