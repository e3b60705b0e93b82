package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// allJobs follows Jobs pages of limit to the end and returns the job ids
// in order.
func allJobs(t *testing.T, s Store, repo string, limit int) []string {
	t.Helper()
	var ids []string
	q := JobsQuery{Repo: repo, Limit: limit}
	for range 100 {
		page, next, err := s.Jobs(context.Background(), q)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page), limit)
		for _, e := range page {
			ids = append(ids, e.JobID)
		}
		if next == 0 {
			return ids
		}
		require.Len(t, page, limit, "a page before the last is full")
		q.Before = next
	}
	t.Fatal("the pages do not end")
	return nil
}

func TestJobs(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()

		page, next, err := s.Jobs(ctx, JobsQuery{})
		require.NoError(t, err)
		assert.NotNil(t, page)
		assert.Empty(t, page)
		assert.Zero(t, next)

		record := func(sr StoredRun) {
			t.Helper()
			c.Advance(time.Minute)
			_, err := s.RecordRun(ctx, sr)
			require.NoError(t, err)
		}
		// job-0 .. job-6, alternately of acme/api and acme/web, each with a
		// base run then a failing run.
		for i := range 7 {
			repo := []string{"acme/api", "acme/web"}[i%2]
			job := fmt.Sprintf("job-%d", i)
			record(StoredRun{Run: run(job+"-b", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}), Repo: repo, JobID: job})
			r := run(job+"-a", "t2", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": fail})
			r.Commit = "c" + job
			record(StoredRun{Run: r, Repo: repo, JobID: job})
		}
		// A run of no job lists none.
		record(StoredRun{Run: run("s-only", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}), Repo: "acme/api", SessionRef: "sess"})

		want := []string{"job-6", "job-5", "job-4", "job-3", "job-2", "job-1", "job-0"}
		for _, limit := range []int{1, 2, 3, 7, 200} {
			assert.Equal(t, want, allJobs(t, s, "", limit), "limit %d", limit)
		}
		assert.Equal(t, []string{"job-6", "job-4", "job-2", "job-0"}, allJobs(t, s, "acme/api", 3))
		assert.Equal(t, []string{"job-5", "job-3", "job-1"}, allJobs(t, s, "acme/web", 2))
		assert.Empty(t, allJobs(t, s, "acme/none", 2))

		page, _, err = s.Jobs(ctx, JobsQuery{Limit: 1})
		require.NoError(t, err)
		require.Len(t, page, 1)
		e := page[0]
		assert.Equal(t, "job-6", e.JobID)
		assert.Equal(t, "job-6-a", e.Latest.Run.ID)
		assert.Equal(t, "cjob-6", e.Latest.Run.Commit)
		assert.Equal(t, "acme/api", e.Latest.Repo)
		assert.Equal(t, "job-6", e.Latest.JobID)
		assert.True(t, e.Latest.HasCases)
		assert.Equal(t, 1, e.Latest.Run.Counts.Failed)

		// Tagging an old run for job-1 again makes job-1 the newest, with
		// that run as its latest.
		v, err := s.RunsVersion(ctx)
		require.NoError(t, err)
		record(StoredRun{Run: run("job-0-b", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}), Repo: "acme/api", JobID: "job-1"})
		v2, err := s.RunsVersion(ctx)
		require.NoError(t, err)
		assert.NotEqual(t, v, v2, "a tagging gives a new version")
		assert.Equal(t, []string{"job-1", "job-6", "job-5", "job-4", "job-3", "job-2", "job-0"}, allJobs(t, s, "", 2))
		page, _, err = s.Jobs(ctx, JobsQuery{Limit: 1})
		require.NoError(t, err)
		assert.Equal(t, "job-0-b", page[0].Latest.Run.ID)
		assert.Equal(t, "acme/api", page[0].Latest.Repo, "the run's repository")

		// Retention gives a new version, and the jobs whose runs all went
		// are listed no more.
		_, err = s.PruneRuns(ctx, c.Now().Add(RunTTL).Add(-8*time.Minute))
		require.NoError(t, err)
		v3, err := s.RunsVersion(ctx)
		require.NoError(t, err)
		assert.NotEqual(t, v2, v3, "retention gives a new version")
		// Gone: the runs of minutes 2 to 7, job-2's both; job-0 and job-1
		// keep job-0-b, tagged last.
		assert.Equal(t, []string{"job-1", "job-6", "job-5", "job-4", "job-3", "job-0"}, allJobs(t, s, "", 200))

		_, _, err = s.Jobs(ctx, JobsQuery{Before: -1})
		assert.Error(t, err)
	})
}
