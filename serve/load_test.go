package serve

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// The load test is out of the default run:
//
//	SERVE_LOAD=1 [SERVE_LOAD_DURATION=30s] [SERVE_LOAD_CLIENTS=200] \
//	  TESTRESULTS_POSTGRES_URL=... go test -run TestLoad -v -timeout 30m ./serve/
//
// It records 10,000 runs (1,000 jobs of 10 runs, 50 cases each), serves
// them on 127.0.0.1 with the server's own timeouts, and has the clients
// ask GET /api/jobs/{id}/tests of random jobs for the duration, then logs
// the requests, the errors and the p50/p99/max latencies.
const (
	loadJobs       = 1000
	loadRunsPerJob = 10
)

func TestLoad(t *testing.T) {
	if os.Getenv("SERVE_LOAD") == "" {
		t.Skip("set SERVE_LOAD=1 to run the load test")
	}
	dur := 30 * time.Second
	if v := os.Getenv("SERVE_LOAD_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		dur = d
	}
	clients := 200
	if v := os.Getenv("SERVE_LOAD_CLIENTS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		clients = n
	}
	forEach(t, func(t *testing.T, st store.Store) {
		seedLoad(t, st)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Serve(ctx, ln, New(st, Options{}).Handler()) }()
		defer func() {
			cancel()
			require.NoError(t, <-done)
		}()
		base := "http://" + ln.Addr().String()
		tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients}
		client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
		defer tr.CloseIdleConnections()

		var mu sync.Mutex
		var lat []time.Duration
		errs := 0
		statuses := map[int]int{}
		stop := time.Now().Add(dur)
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(c), 7))
				var mine []time.Duration
				myErrs := 0
				my := map[int]int{}
				for time.Now().Before(stop) {
					url := fmt.Sprintf("%s/api/jobs/job-%04d/tests", base, rng.IntN(loadJobs))
					start := time.Now()
					resp, err := client.Get(url)
					if err != nil {
						myErrs++
						continue
					}
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					mine = append(mine, time.Since(start))
					my[resp.StatusCode]++
					if err != nil || resp.StatusCode != http.StatusOK {
						myErrs++
					}
				}
				mu.Lock()
				lat = append(lat, mine...)
				errs += myErrs
				for k, v := range my {
					statuses[k] += v
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		require.NotEmpty(t, lat)
		slices.Sort(lat)
		q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
		t.Logf("%d clients, %s: %d requests (%.0f/s), %d errors, statuses %v; latency p50 %s, p99 %s, max %s",
			clients, dur, len(lat), float64(len(lat))/dur.Seconds(), errs, statuses,
			q(0.50).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond))
	})
}

// seedLoad records loadJobs jobs of loadRunsPerJob runs: a base run, then
// after-turn runs with a few failures and coverage.
func seedLoad(t *testing.T, st store.Store) {
	t.Helper()
	start := time.Now()
	ctx := context.Background()
	outcomes := func(j, r int) map[string]testrun.Outcome {
		m := make(map[string]testrun.Outcome, 50)
		for i := range 50 {
			o := pass
			if r > 0 && (i+j+r)%17 == 0 {
				o = fail
			}
			m[fmt.Sprintf("pkg%d::Test%02d", j%7, i)] = o
		}
		return m
	}
	for j := range loadJobs {
		for r := range loadRunsPerJob {
			kind := testrun.KindAfterTurn
			if r == 0 {
				kind = testrun.KindBase
			}
			rate := 0.5 + float64(r)/100
			run := mkRun(fmt.Sprintf("run-%04d-%02d", j, r), kind, r, outcomes(j, r), nil, &rate)
			_, err := st.RecordRun(ctx, store.StoredRun{Run: run, Repo: "acme/load", JobID: fmt.Sprintf("job-%04d", j)})
			require.NoError(t, err)
		}
	}
	t.Logf("seeded %d runs in %s", loadJobs*loadRunsPerJob, time.Since(start).Round(time.Millisecond))
}

// The static comparison is out of the default run too:
//
//	SERVE_LOAD=1 [SERVE_LOAD_DURATION=3s] [SERVE_LOAD_REQUESTS=100000] \
//	  TESTRESULTS_POSTGRES_URL=... go test -run TestLoadStatic -v -timeout 30m ./serve/
//
// It records one run of 20,000 cases (200 failing) for a job, serves it on
// 127.0.0.1, and beside it an http.FileServer serving the same response
// bytes from files. For the summary, ?format=otel and the first cases
// page, with 1, 16 and 64 clients, each server is asked for the duration
// (or the request count, whichever ends first), in turns, and the test logs
// both servers' requests per second and their ratio. Both are asked without
// gzip, so that both send the same bytes.
func TestLoadStatic(t *testing.T) {
	if os.Getenv("SERVE_LOAD") == "" {
		t.Skip("set SERVE_LOAD=1 to run the load test")
	}
	dur := 3 * time.Second
	if v := os.Getenv("SERVE_LOAD_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		dur = d
	}
	maxRequests := 100_000
	if v := os.Getenv("SERVE_LOAD_REQUESTS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		maxRequests = n
	}
	forEach(t, func(t *testing.T, st store.Store) {
		outcomes := make(map[string]testrun.Outcome, 20000)
		for i := range 20000 {
			o := pass
			if i%100 == 7 {
				o = fail
			}
			outcomes[fmt.Sprintf("pkg/mod%03d::test_%05d", i%400, i)] = o
		}
		run := mkRun("load-run", testrun.KindAfterTurn, 0, outcomes, nil, ptr(0.75))
		require.Equal(t, 200, run.Counts.Failed)
		_, err := st.RecordRun(context.Background(), store.StoredRun{Run: run, Repo: "acme/load", JobID: "job-load"})
		require.NoError(t, err)

		base := startServer(t, New(st, Options{}).Handler())
		dir := t.TempDir()
		static := startServer(t, http.FileServer(http.Dir(dir)))
		tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, DisableCompression: true}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
		for _, ep := range []struct{ name, path string }{
			{"summary", "/api/jobs/job-load/tests"},
			{"otel", "/api/jobs/job-load/tests?format=otel"},
			{"cases", "/api/jobs/job-load/tests?run=load-run&cases=true"},
		} {
			body := fetch(t, client, base+ep.path)
			require.NoError(t, os.WriteFile(filepath.Join(dir, ep.name+".json"), body, 0o600))
			require.Equal(t, body, fetch(t, client, static+"/"+ep.name+".json"), "the static server sends the same bytes")
			for _, clients := range []int{1, 16, 64} {
				// In turns, so that what else the machine runs weighs on
				// both alike.
				var ours, theirs loadResult
				for range loadTurns {
					ours.add(hammer(t, client, base+ep.path, clients, dur/loadTurns, maxRequests/loadTurns))
					theirs.add(hammer(t, client, static+"/"+ep.name+".json", clients, dur/loadTurns, maxRequests/loadTurns))
				}
				t.Logf("%-7s %6d B, %2d clients: serve %7.0f req/s (p99 %s), static %7.0f req/s (p99 %s), ratio %.2f",
					ep.name, len(body), clients, ours.rate(), ours.p99(), theirs.rate(), theirs.p99(), ours.rate()/theirs.rate())
			}
		}
	})
}

// startServer serves h on 127.0.0.1 until the test ends and returns its
// base URL.
func startServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return "http://" + ln.Addr().String()
}

func fetch(t *testing.T, client *http.Client, url string) []byte {
	t.Helper()
	resp, err := client.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	return body
}

// loadTurns is how many turns each server takes.
const loadTurns = 5

// loadResult is what clients saw: each request's latency, and the time
// they took.
type loadResult struct {
	lat     []time.Duration
	elapsed time.Duration
}

func (r *loadResult) add(o loadResult) {
	r.lat = append(r.lat, o.lat...)
	r.elapsed += o.elapsed
}

func (r *loadResult) rate() float64 { return float64(len(r.lat)) / r.elapsed.Seconds() }

func (r *loadResult) p99() time.Duration {
	slices.Sort(r.lat)
	return r.lat[min(len(r.lat)-1, int(0.99*float64(len(r.lat))))].Round(10 * time.Microsecond)
}

// hammer has clients ask url until dur has passed or max requests were
// sent, and requires every answer to be 200.
func hammer(t *testing.T, client *http.Client, url string, clients int, dur time.Duration, max int) loadResult {
	t.Helper()
	var sent atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	failed := 0
	start := time.Now()
	stop := start.Add(dur)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			bad := 0
			for time.Now().Before(stop) && sent.Add(1) <= int64(max) {
				t0 := time.Now()
				resp, err := client.Get(url)
				if err != nil {
					bad++
					continue
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					bad++
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			failed += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	require.Zero(t, failed, "every request answered 200")
	require.NotEmpty(t, lat)
	return loadResult{lat: lat, elapsed: elapsed}
}
