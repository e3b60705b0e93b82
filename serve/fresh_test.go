package serve

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

func TestWantsFresh(t *testing.T) {
	tests := []struct {
		name   string
		header http.Header
		want   bool
	}{
		{"none", http.Header{}, false},
		{"no-cache", http.Header{"Cache-Control": {"no-cache"}}, true},
		{"among others", http.Header{"Cache-Control": {"public, No-Cache , max-age=60"}}, true},
		{"no-cache naming a field", http.Header{"Cache-Control": {`no-cache="set-cookie"`}}, true},
		{"max-age=0", http.Header{"Cache-Control": {"max-age=0"}}, true},
		{"in a second header line", http.Header{"Cache-Control": {"public", "no-cache"}}, true},
		{"max-age=60", http.Header{"Cache-Control": {"max-age=60"}}, false},
		{"no-store is not a revalidation", http.Header{"Cache-Control": {"no-store"}}, false},
		{"Pragma without Cache-Control", http.Header{"Pragma": {"no-cache"}}, true},
		{"Cache-Control wins over Pragma", http.Header{"Cache-Control": {"max-age=60"}, "Pragma": {"no-cache"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, wantsFresh(tt.header))
		})
	}
}

// TestFreshAfterAWrite serves a PostgreSQL store that listens for writes
// (store.WithWatch) while another handle records runs: a request sent
// with Cache-Control: no-cache reads the job's version from the database,
// and a plain request answers the new run once its write is heard.
func TestFreshAfterAWrite(t *testing.T) {
	loc := teststore.PostgresLocation(t)
	ctx := context.Background()
	st, err := store.Open(ctx, loc, store.WithWatch())
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	writer, err := store.Open(ctx, loc)
	require.NoError(t, err)
	t.Cleanup(func() { writer.Close() })
	srv := httptest.NewServer(New(st, Options{}).Handler())
	t.Cleanup(srv.Close)

	runs := func(fresh bool) []string {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/jobs/j/tests", nil)
		require.NoError(t, err)
		if fresh {
			req.Header.Set("Cache-Control", "no-cache")
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var body struct {
			Runs []struct {
				ID string `json:"id"`
			} `json:"runs"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		var ids []string
		for _, r := range body.Runs {
			ids = append(ids, r.ID)
		}
		return ids
	}
	record := func(id string, at int) {
		t.Helper()
		_, err := writer.RecordRun(ctx, store.StoredRun{Run: mkRun(id, testrun.KindAfterTurn, at, map[string]testrun.Outcome{"pkg::TestA": pass}, nil, nil), JobID: "j"})
		require.NoError(t, err)
	}

	db, err := sql.Open("pgx", loc)
	require.NoError(t, err)
	defer db.Close()
	trigger := func(on string) {
		t.Helper()
		for _, table := range []string{"run_writes", "run_versions"} {
			_, err := db.ExecContext(ctx, `ALTER TABLE `+table+` `+on+` TRIGGER `+table+`_notify`)
			require.NoError(t, err)
		}
	}

	// Writes nobody announces (the triggers are off for them): once the
	// store listens, a plain request answers from the version it kept,
	// and no-cache asks the database.
	record("r1", 1)
	trigger("DISABLE")
	n, stale := 1, false
	for deadline := testDeadline(t); !stale && time.Now().Before(deadline); {
		seen := len(runs(false)) // the version it was answered for is kept once the store listens
		n++
		record(fmt.Sprintf("r%d", n), n)
		stale = len(runs(false)) == seen
	}
	require.True(t, stale, "the store never kept a version")
	assert.Len(t, runs(true), n, "no-cache reads the version the last write gave the job")

	// Announced writes are heard.
	trigger("ENABLE")
	n++
	record(fmt.Sprintf("r%d", n), n)
	for deadline := testDeadline(t); len(runs(false)) != n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Len(t, runs(false), n, "the last write was heard")
}
