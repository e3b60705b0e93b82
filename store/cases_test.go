package store

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// casesRun is a run of n cases whose ids need JSON escapes now and then,
// one in 7 failing, one in 11 errored, one in 13 skipped; every case
// states a time but one in 5.
func casesRun(id string, n int) *testrun.Run {
	outcomes := map[string]testrun.Outcome{}
	for i := range n {
		tid := fmt.Sprintf("pkg::Test%05d", i)
		switch i % 10 {
		case 3:
			tid += `<&>`
		case 6:
			tid += `"quoted" \ é`
		}
		o := pass
		switch {
		case i%7 == 0:
			o = fail
		case i%11 == 0:
			o = testrun.OutcomeError
		case i%13 == 0:
			o = testrun.OutcomeSkipped
		}
		outcomes[tid] = o
	}
	r := run(id, "tree-"+id, testrun.KindAfterTurn, outcomes)
	i := 0
	for _, tid := range slices.Sorted(maps.Keys(r.Durations)) {
		if i%5 == 0 {
			delete(r.Durations, tid)
		}
		i++
	}
	return r
}

// TestRunPage: a page of a run's cases is the slice, in test id order, of
// the cases Run returns, with their durations and only theirs, the next
// offset after it; the store decodes the page's cases and no other. A
// stored map that is not in order (not as the store writes it) pages the
// same.
func TestRunPage(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := open(t, b.location(t), newClock())
		ss := s.(*sqlStore)
		ctx := context.Background()
		r := casesRun("r1", 1234)
		_, err := s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "j"})
		require.NoError(t, err)
		full, err := s.Run(ctx, "r1")
		require.NoError(t, err)
		ids := slices.Sorted(maps.Keys(full.Run.Cases))
		require.Len(t, ids, 1234)

		// check pages through; the store decodes what decodes(page) says.
		check := func(t *testing.T, decodes func(page, limit int) int) {
			for _, tc := range []struct{ offset, limit int }{{0, 500}, {500, 500}, {1000, 500}, {1233, 5}, {1234, 5}, {5000, 10}, {0, 0}, {0, 5000}} {
				before := ss.decoded.Load()
				sr, next, err := s.RunPage(ctx, "r1", tc.offset, tc.limit)
				require.NoError(t, err)
				end := min(tc.offset+tc.limit, len(ids))
				want := ids[min(tc.offset, len(ids)):end]
				if got := slices.Sorted(maps.Keys(sr.Run.Cases)); len(want) > 0 || len(got) > 0 {
					assert.Equal(t, want, got, "%+v", tc)
				}
				for _, id := range want {
					assert.Equal(t, full.Run.Cases[id], sr.Run.Cases[id])
					d, ok := full.Run.Durations[id]
					got, gok := sr.Run.Durations[id]
					assert.Equal(t, ok, gok, id)
					assert.Equal(t, d, got, id)
				}
				timed := 0
				for _, id := range want {
					if _, ok := full.Run.Durations[id]; ok {
						timed++
					}
				}
				assert.Len(t, sr.Run.Durations, timed, "the page's durations, no other")
				if end < len(ids) {
					assert.Equal(t, end, next, "%+v", tc)
				} else {
					assert.Equal(t, -1, next, "%+v", tc)
				}
				assert.True(t, sr.HasCases)
				assert.Equal(t, full.Repo, sr.Repo)
				assert.Equal(t, full.RecordedAt, sr.RecordedAt)
				assert.Equal(t, full.Run.Failures, sr.Run.Failures)
				assert.Equal(t, int64(decodes(len(want), tc.limit)), ss.decoded.Load()-before, "%+v", tc)
			}
		}
		t.Run("as stored", func(t *testing.T) {
			before := ss.decoded.Load()
			sr, _, err := s.RunPage(ctx, "r1", 600, 300)
			require.NoError(t, err)
			assert.Len(t, sr.Run.Cases, 300)
			assert.Equal(t, int64(300), ss.decoded.Load()-before, "the page's 300 cases are decoded, not the 1,234")
			check(t, func(page, _ int) int { return page })
		})
		t.Run("not in order", func(t *testing.T) {
			// The same map written in reverse order.
			var b []byte
			b = append(b, '{')
			for i, id := range slices.Backward(ids) {
				if i != len(ids)-1 {
					b = append(b, ',')
				}
				k, _ := json.Marshal(id)
				v, _ := json.Marshal(full.Run.Cases[id])
				b = append(b, k...)
				b = append(b, ':')
				b = append(b, v...)
			}
			b = append(b, '}')
			_, err := ss.db.ExecContext(ctx, ss.q(`UPDATE runs SET cases_json = ? WHERE run_id = ?`), string(b), "r1")
			require.NoError(t, err)
			// Decoded whole, then paged (once the order is seen wrong).
			check(t, func(_, limit int) int {
				if limit == 0 {
					return 0
				}
				return len(ids)
			})
		})

		// Cases dropped: no page, no next.
		_, err = s.PruneRuns(ctx, newClock().Now().Add(CasesTTL+time.Hour))
		require.NoError(t, err)
		sr, next, err := s.RunPage(ctx, "r1", 0, 10)
		require.NoError(t, err)
		assert.False(t, sr.HasCases)
		assert.Nil(t, sr.Run.Cases)
		assert.Equal(t, -1, next)
		_, _, err = s.RunPage(ctx, "nope", 0, 10)
		assert.ErrorIs(t, err, ErrNotFound)
	})
}

// TestRunOutcomes: a run's outcomes are its failing cases (failed and
// errored) and the cases asked for that it holds, as Run has them; only
// those are decoded. A run without cases has none.
func TestRunOutcomes(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := open(t, b.location(t), newClock())
		ss := s.(*sqlStore)
		ctx := context.Background()
		_, err := s.RecordRun(ctx, StoredRun{Run: casesRun("r1", 1234), JobID: "j"})
		require.NoError(t, err)
		full, err := s.Run(ctx, "r1")
		require.NoError(t, err)
		want := map[string]testrun.Outcome{}
		var also []string
		for id, o := range full.Run.Cases {
			if o.Failing() {
				want[id] = o
			} else if len(also) < 30 {
				also = append(also, id)
				want[id] = o
			}
		}
		also = append(also, "pkg::NotARun")
		before := ss.decoded.Load()
		got, err := s.RunOutcomes(ctx, "r1", also)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		assert.Equal(t, int64(len(want)), ss.decoded.Load()-before, "only those are decoded")
		assert.Less(t, len(want), 400)

		_, err = s.PruneRuns(ctx, newClock().Now().Add(CasesTTL+time.Hour))
		require.NoError(t, err)
		got, err = s.RunOutcomes(ctx, "r1", also)
		require.NoError(t, err)
		assert.Nil(t, got)
		_, err = s.RunOutcomes(ctx, "nope", nil)
		assert.ErrorIs(t, err, ErrNotFound)
	})
}

// TestFailingKept: a run's failing cases are kept when it is recorded, and
// RunOutcomes without ids to look up reads them, not the stored map; a run
// stored before they were kept has them kept on first read. Retention
// drops them with the cases, and a tagging that gives the cases back keeps
// them again.
func TestFailingKept(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ss := s.(*sqlStore)
		ctx := context.Background()
		r := casesRun("r1", 1234)
		_, err := s.RecordRun(ctx, StoredRun{Run: r, JobID: "j"})
		require.NoError(t, err)
		want := map[string]testrun.Outcome{}
		for id, o := range r.Cases {
			if o.Failing() {
				want[id] = o
			}
		}
		outcomes := func(scans int64) {
			t.Helper()
			before := ss.scanned.Load()
			got, err := s.RunOutcomes(ctx, "r1", nil)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, scans, ss.scanned.Load()-before, "stored maps read through")
		}
		outcomes(0)

		_, err = ss.db.ExecContext(ctx, `DELETE FROM run_failing`) // as stored before
		require.NoError(t, err)
		outcomes(1)
		outcomes(0)

		c.Advance(CasesTTL + time.Hour)
		p, err := s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		require.Equal(t, int64(1), p.Cases)
		got, err := s.RunOutcomes(ctx, "r1", nil)
		require.NoError(t, err)
		assert.Nil(t, got, "no cases, no failing cases")
		var n int
		require.NoError(t, ss.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM run_failing`).Scan(&n))
		assert.Zero(t, n)

		_, err = s.RecordRun(ctx, StoredRun{Run: r, JobID: "k"})
		require.NoError(t, err)
		outcomes(0)
	})
}
