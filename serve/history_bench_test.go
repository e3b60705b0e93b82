package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
)

// BenchmarkHistory10000Runs records 10,000 runs of a real project's report
// (seedProject, through RecordRun) on each store, then measures one test's
// history from the store and as JSON, the test's page, and the
// repository's page (trends of the last 100 runs and its tests ranked over
// them), each rendered anew (no response cache).
func BenchmarkHistory10000Runs(b *testing.B) {
	const runs = 10000
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			st, err := store.Open(context.Background(), be.location(b))
			require.NoError(b, err)
			b.Cleanup(func() { st.Close() })
			flaky, _ := seedProject(b, st, "hangar-dev/sample", runs, runs-30)
			h, err := store.HistoryOf(st)
			require.NoError(b, err)
			handler := New(st, Options{CacheBytes: -1}).Handler()
			b.Run("store-test-history", func(b *testing.B) {
				for b.Loop() {
					got, err := h.TestHistory(context.Background(), store.HistoryQuery{Repo: "hangar-dev/sample", TestID: flaky})
					if err != nil || len(got) != runs {
						b.Fatalf("%d entries, %v", len(got), err)
					}
				}
			})
			for _, page := range []struct{ name, path string }{
				{"api-test-history", "/api/repos/tests/history?" + historyQuery("hangar-dev/sample", flaky)},
				{"page-test-history", "/repos/tests/history?" + historyQuery("hangar-dev/sample", flaky)},
				{"api-trends", "/api/repos/tests/trends?" + historyQuery("hangar-dev/sample", "")},
				{"page-repo", "/repos/tests?" + historyQuery("hangar-dev/sample", "")},
			} {
				b.Run(page.name, func(b *testing.B) {
					for b.Loop() {
						w := httptest.NewRecorder()
						handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, page.path, nil))
						if w.Code != http.StatusOK {
							b.Fatalf("%d: %s", w.Code, w.Body)
						}
					}
				})
			}
		})
	}
}
