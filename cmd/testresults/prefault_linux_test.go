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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestPrefaultMapsCode: as it starts, the binary has the kernel map all of
// its code into its page table at once (internal/prefault), instead of
// page by page as it is touched, unless TESTRESULTS_PREFAULT=0. Read off a
// running `testresults mcp`'s /proc/PID/smaps: the code mapping's resident
// size is its whole size, and less with the prefault off.
func TestPrefaultMapsCode(t *testing.T) {
	page, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	require.NoError(t, err)
	err = syscall.Madvise(page, 22) // MADV_POPULATE_READ
	_ = syscall.Munmap(page)
	if errors.Is(err, syscall.EINVAL) {
		t.Skip("this kernel has no MADV_POPULATE_READ (Linux 5.14 or later)")
	}
	require.NoError(t, err)

	bin := builtBinary(t)
	// Only a binary in the page cache is mapped at once: read it all, as
	// the first start would.
	_, err = os.ReadFile(bin)
	require.NoError(t, err)

	code := func(prefault string) (rss, size int64) {
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
		rss, size, err = codeMapping(smaps)
		require.NoError(t, err)
		return rss, size
	}
	rss, size := code("1")
	t.Logf("code mapping: %d of %d kB resident with the prefault", rss, size)
	require.Equal(t, size, rss, "with the prefault, all of the code is mapped")
	rss, size = code("0")
	t.Logf("code mapping: %d of %d kB resident without", rss, size)
	require.Less(t, rss, size, "without the prefault, only the code touched is mapped")
}

// codeMapping returns the Rss and Size, in kB, of the first executable
// mapping in a /proc/PID/smaps: the binary's code.
func codeMapping(smaps []byte) (rss, size int64, err error) {
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	in := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 2 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			if in {
				return rss, size, nil
			}
			in = f[1] == "r-xp"
		case in && len(f) == 3 && (f[0] == "Rss:" || f[0] == "Size:"):
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, 0, err
			}
			if f[0] == "Rss:" {
				rss = n
			} else {
				size = n
			}
		}
	}
	if size == 0 {
		return 0, 0, errors.New("no executable mapping in smaps")
	}
	return rss, size, nil
}
