package attest

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

// corpusRuns yields every run the shared corpus of real reports gives: each
// report file alone, and each folder of it as one run, so that runs with
// several reports, refused ones among them, are there too.
func corpusRuns(t *testing.T) map[string][]string {
	t.Helper()
	dir := testcorpus.Dir(t)
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	require.NoError(t, err)
	defer f.Close()
	runs := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for first := true; sc.Scan(); first = false {
		file, _, _ := strings.Cut(sc.Text(), "\t")
		if first || strings.HasPrefix(file, "(") || strings.Contains(file, ".expected") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(file))
		runs[file] = []string{p}
		folder := filepath.Dir(file) + "/"
		runs[folder] = append(runs[folder], p)
	}
	require.NoError(t, sc.Err())
	return runs
}

// variants are the ways one set of reports becomes a run: every kind (and
// none), a grader of each grade, an incomplete run, and a check that
// failed or timed out whatever its reports say.
func variants(run *testrun.Run) map[string]*testrun.Run {
	out := map[string]*testrun.Run{}
	with := func(name string, edit func(r *testrun.Run)) {
		r := *run
		edit(&r)
		out[name] = &r
	}
	for _, k := range append([]testrun.Kind{""}, testrun.Kinds...) {
		with("kind "+string(k), func(r *testrun.Run) { r.Kind = k })
	}
	with("grader isolated", func(r *testrun.Run) { r.Kind, r.Grade = testrun.KindGrader, testrun.GradeIsolated })
	with("grader lower", func(r *testrun.Run) { r.Kind, r.Grade = testrun.KindGrader, "shared" })
	with("incomplete", func(r *testrun.Run) {
		r.Complete = false
		r.IncompleteReasons = append(append([]string(nil), r.IncompleteReasons...), "a report was cut short")
	})
	one := 1
	with("exit 1", func(r *testrun.Run) { r.Status, r.ExitCode = testrun.StatusFailure, &one })
	with("timed out", func(r *testrun.Run) { r.Status, r.ExitCode = testrun.StatusTimedOut, nil })
	return out
}

// TestCorpusNeverPassedUncounted is the property over every run the shared
// corpus yields, in every variant: a run that is not counted is never
// PASSED (nor WARNED); the statement parses with the in-toto Go types and
// validates (each run as an after_turn and a gate run is written and read
// back); the result is the one rule's (Decide). A PASSED run signs and
// verifies against the corpus files themselves.
func TestCorpusNeverPassedUncounted(t *testing.T) {
	runs := corpusRuns(t)
	keys := ed25519Pair(t)
	signer, err := LoadSigner(keys.private)
	require.NoError(t, err)
	verifier, err := LoadVerifier(keys.public)
	require.NoError(t, err)
	names := make([]string, 0, len(runs))
	for n := range runs {
		names = append(names, n)
	}
	sort.Strings(names)
	seen := map[Result]int{}
	uncounted, verified := 0, 0
	for _, name := range names {
		base, _ := report.ReadRun(runs[name])
		base.ID, base.Commit, base.Tree, base.Kind, base.Command = "corpus", commitA, treeA, testrun.KindAfterTurn, "make test"
		zero := 0
		base.Status, base.ExitCode = testrun.StatusSuccess, &zero
		for vname, run := range variants(base) {
			require.NoError(t, run.Validate(), "%s, %s", name, vname)
			st, err := NewStatement(run)
			require.NoError(t, err, "%s, %s", name, vname)
			pred := st.GetPredicate().GetFields()
			result := Result(pred["result"].GetStringValue())
			counted := pred[ExtensionKey].GetStructValue().GetFields()["counted"].GetBoolValue()
			if vname == "kind after_turn" || vname == "kind gate" {
				// Written and read back with the in-toto Go types, as
				// another verifier reads it.
				b, err := MarshalStatement(st)
				require.NoError(t, err)
				_, tr, ext := parseStatement(t, b)
				require.Equal(t, string(result), tr.GetResult())
				require.Equal(t, counted, ext["counted"])
			}
			seen[result]++
			want, _ := Decide(FactsOf(run))
			require.Equal(t, want, result, "%s, %s", name, vname)
			require.Equal(t, run.Counted(), counted, "%s, %s", name, vname)
			if !run.Counted() {
				uncounted++
				require.Equal(t, ResultFailed, result, "%s, %s: a run that is not counted is never PASSED", name, vname)
			}
			if result == ResultPassed && vname == "kind after_turn" {
				env, err := Sign(context.Background(), st, signer)
				require.NoError(t, err)
				e, err := ReadEnvelope(strings.NewReader(string(env)))
				require.NoError(t, err)
				v := Verify(context.Background(), e, verifier, Want{Tree: treeA, Commit: commitA, Reports: runs[name]})
				require.True(t, v.OK(), "%s: %q", name, v.Problems)
				verified++
			}
		}
	}
	t.Logf("%d runs from the corpus, %d variants: %d PASSED, %d WARNED, %d FAILED (%d not counted); %d PASSED runs signed and verified",
		len(names), seen[ResultPassed]+seen[ResultWarned]+seen[ResultFailed], seen[ResultPassed], seen[ResultWarned], seen[ResultFailed], uncounted, verified)
	// The property is not vacuous: the corpus gives PASSED runs and runs
	// that are not counted (no real run in it passes with flaky tests
	// only: TestStatementWarned covers WARNED).
	assert.Positive(t, seen[ResultPassed])
	assert.Positive(t, uncounted)
	assert.Positive(t, verified)
}
