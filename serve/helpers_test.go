package serve

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// postgresURLEnv names the PostgreSQL server the tests may create schemas
// in (scripts/postgres.sh start sets it).
const postgresURLEnv = "TESTRESULTS_POSTGRES_URL"

type backend struct {
	name     string
	location func(t testing.TB) string
}

// backends are SQLite and PostgreSQL; PostgreSQL is skipped when
// postgresURLEnv is unset, except under CI=true where that fails.
var backends = []backend{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "store.db") }},
	{"postgres", postgresLocation},
}

func postgresLocation(t testing.TB) string {
	base := os.Getenv(postgresURLEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is unset under CI=true: start a server with scripts/postgres.sh", postgresURLEnv)
		}
		t.Skipf("%s is unset (scripts/postgres.sh start sets it)", postgresURLEnv)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "s_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	require.NoError(t, err)
	defer admin.Close()
	_, err = admin.Exec(`CREATE SCHEMA ` + schema)
	require.NoError(t, err)
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err == nil {
			_, _ = admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
			admin.Close()
		}
	})
	u, err := url.Parse(base)
	require.NoError(t, err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func forEach(t *testing.T, fn func(t *testing.T, st store.Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st, err := store.Open(context.Background(), b.location(t))
			require.NoError(t, err)
			t.Cleanup(func() { st.Close() })
			fn(t, st)
		})
	}
}

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// mkRun builds a complete run; failing cases get message "<id> broke" or
// msgs[id], and rate (when not nil) is its line coverage.
func mkRun(id string, kind testrun.Kind, at int, outcomes map[string]testrun.Outcome, msgs map[string]string, rate *float64, flaky ...string) *testrun.Run {
	var execs []testrun.Execution
	// In id order, as a report lists them: the run's failures keep that order.
	for _, tid := range slices.Sorted(maps.Keys(outcomes)) {
		o := outcomes[tid]
		msg := ""
		if o.Failing() {
			msg = tid + " broke"
			if m, ok := msgs[tid]; ok {
				msg = m
			}
		}
		execs = append(execs, testrun.Execution{ID: tid, Scope: "s", Outcome: o, Message: msg})
	}
	for _, tid := range flaky {
		execs = append(execs, testrun.Execution{ID: tid, Scope: "s", Outcome: testrun.OutcomePassed, RunnerFlaky: true})
	}
	n := len(execs)
	b := testrun.NewBuilder()
	var cov *testrun.CoverageReport
	if rate != nil {
		valid := int64(1000)
		covered := int64(*rate * 1000)
		cov = &testrun.CoverageReport{LineRate: rate, LinesCovered: &covered, LinesValid: &valid}
	}
	b.AddReport(testrun.ReportInfo{Path: "r.xml", Dialect: "junit", Tests: &n, SHA256: fmt.Sprintf("%064d", 0), Bytes: 1}, execs, nil)
	if cov != nil {
		b.AddReport(testrun.ReportInfo{Path: "coverage.xml", Dialect: "cobertura", SHA256: fmt.Sprintf("%064d", 1), Bytes: 1}, nil, cov)
	}
	r := b.Build()
	r.ID, r.Kind, r.Tree = id, kind, "tree-"+id
	r.Command = "go test ./..."
	code := 0
	r.Status = testrun.StatusSuccess
	if r.Counts != nil && r.Counts.Failed+r.Counts.Errors > 0 {
		code, r.Status = 1, testrun.StatusFailure
	}
	r.ExitCode = &code
	r.StartedAt = t0.Add(time.Duration(at) * time.Minute)
	r.EndedAt = r.StartedAt.Add(30 * time.Second)
	return r
}

func ptr[T any](v T) *T { return &v }
