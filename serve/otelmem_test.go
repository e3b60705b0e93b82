package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// The memory measurement of ?format=otel is out of the default run:
//
//	SERVE_OTEL_MEMORY=1 [SERVE_OTEL_RUNS=20] [SERVE_OTEL_CASES=20000] \
//	  [SERVE_OTEL_PARALLEL=1] [SERVE_OTEL_QUERY=&case_spans=all] \
//	  go test -run TestOtelMemory -v -timeout 30m ./serve/
//
// It records one job of SERVE_OTEL_RUNS runs of SERVE_OTEL_CASES cases each
// (1% failing) in SQLite, then has SERVE_OTEL_PARALLEL clients each read
// the job's ?format=otel, following every next link (and waiting as
// Retry-After says when the server is busy), and logs the process's
// resident memory before and at its peak (VmRSS, VmHWM of /proc/self/status,
// the peak reset once seeding is done), the time, the pages and the bytes.
func TestOtelMemory(t *testing.T) {
	if os.Getenv("SERVE_OTEL_MEMORY") == "" {
		t.Skip("set SERVE_OTEL_MEMORY=1 to measure ?format=otel")
	}
	envInt := func(name string, def int) int {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			require.NoError(t, err)
			return n
		}
		return def
	}
	runs, cases, parallel := envInt("SERVE_OTEL_RUNS", 20), envInt("SERVE_OTEL_CASES", 20000), envInt("SERVE_OTEL_PARALLEL", 1)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	require.NoError(t, err)
	defer st.Close()
	start := time.Now()
	for r := range runs {
		m := make(map[string]testrun.Outcome, cases)
		for i := range cases {
			o := pass
			if i%100 == 0 {
				o = fail
			}
			m[fmt.Sprintf("pkg%02d::TestCase%06d", i%50, i)] = o
		}
		run := mkRun(fmt.Sprintf("mem-run-%02d", r), testrun.KindAfterTurn, r, m, nil, nil)
		_, err := st.RecordRun(ctx, store.StoredRun{Run: run, Repo: "acme/mem", JobID: "job-mem"})
		require.NoError(t, err)
	}
	t.Logf("seeded %d runs of %d cases in %s", runs, cases, time.Since(start).Round(time.Millisecond))

	srv := httptest.NewServer(New(st, Options{RequestTimeout: 10 * time.Minute}).Handler())
	defer srv.Close()
	runtime.GC()
	before := procStatus(t, "VmRSS")
	// Writing 5 to clear_refs resets the peak (VmHWM) to the current RSS.
	require.NoError(t, os.WriteFile("/proc/self/clear_refs", []byte("5"), 0))
	start = time.Now()
	var wg sync.WaitGroup
	type result struct {
		pages, busy, status int
		bytes               int64
	}
	results := make([]result, parallel)
	for c := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := "/api/jobs/job-mem/tests?format=otel" + os.Getenv("SERVE_OTEL_QUERY")
			for next != "" {
				resp, err := srv.Client().Get(srv.URL + next)
				if err != nil {
					t.Error(err)
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusServiceUnavailable {
					// Busy: wait as Retry-After says, then ask again.
					secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
					results[c].busy++
					time.Sleep(time.Duration(max(secs, 1)) * time.Second)
					continue
				}
				results[c].pages++
				results[c].bytes += n
				results[c].status = resp.StatusCode
				if resp.StatusCode != http.StatusOK {
					return
				}
				next = nextLink(resp.Header.Get("Link"))
			}
		}()
	}
	wg.Wait()
	t.Logf("%d client(s): RSS %d MB before, peak %d MB; %s; %+v", parallel, before>>10, procStatus(t, "VmHWM")>>10,
		time.Since(start).Round(time.Millisecond), results)
}

// procStatus reads a kB field of /proc/self/status.
func procStatus(t *testing.T, field string) int64 {
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}
