package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// procCPU returns the CPU time (user + system) process pid has used.
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	// The command name, in parentheses, may hold spaces: fields are counted
	// from the last ')'. utime and stime are fields 14 and 15 of the line,
	// so 12 and 13 after the name.
	rest := string(b[bytes.LastIndexByte(b, ')')+1:])
	f := strings.Fields(rest)
	require.Greater(t, len(f), 13, "/proc/%d/stat: %s", pid, b)
	utime, err := strconv.ParseInt(f[11], 10, 64)
	require.NoError(t, err)
	stime, err := strconv.ParseInt(f[12], 10, 64)
	require.NoError(t, err)
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// procPeakRSS returns the peak resident set size of process pid in bytes
// (VmHWM).
func procPeakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(v)
			require.Len(t, f, 2, line)
			require.Equal(t, "kB", f[1], line)
			kb, err := strconv.ParseInt(f[0], 10, 64)
			require.NoError(t, err)
			return kb * 1024
		}
	}
	t.Fatalf("/proc/%d/status has no VmHWM", pid)
	return 0
}

// tail reads an OTLP/JSON lines file as it grows: each call returns the
// batches of the lines completed since the last call. A file the collector
// rotated is not followed: the tests configure files large enough.
type tail struct {
	path   string
	offset int64
	lines  int
}

func (tl *tail) read(t *testing.T) []ptrace.Traces {
	t.Helper()
	f, err := os.Open(tl.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Seek(tl.offset, io.SeekStart)
	require.NoError(t, err)
	r := bufio.NewReaderSize(f, 1<<20)
	u := &ptrace.JSONUnmarshaler{}
	var out []ptrace.Traces
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return out // an incomplete last line is read next time
		}
		require.NoError(t, err)
		tl.offset += int64(len(line))
		tl.lines++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		td, err := u.UnmarshalTraces(line)
		require.NoError(t, err, "%s line %d: %.200s", tl.path, tl.lines, line)
		out = append(out, td)
	}
}
