package attest

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// bigRun is a counted run keeping the most cases a run keeps, all passed.
func bigRun(tb testing.TB) *testrun.Run {
	tb.Helper()
	execs := make([]testrun.Execution, testrun.DefaultMaxCasesKept)
	for i := range execs {
		execs[i] = testrun.Execution{ID: fmt.Sprintf("pkg/module_%03d.TestSuite::test_case_number_%05d", i%100, i), Scope: "s", Outcome: testrun.OutcomePassed}
	}
	n := len(execs)
	b := testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: "junit.xml", Dialect: "junit", Bytes: 1 << 20, SHA256: "682d94963c7da855a4a37e744445b978c29137dbecbeda07d1d99080d2e6c3f9", Tests: &n}, execs, nil)
	run := b.Build()
	run.ID, run.Kind, run.Commit = "big", testrun.KindAfterTurn, commitA
	require.True(tb, run.Counted())
	return run
}

// BenchmarkAttest: the statement of a run of 20,000 cases, signed with
// Ed25519. SetBytes is the envelope's size.
func BenchmarkAttest(b *testing.B) {
	run := bigRun(b)
	signer, err := LoadSigner(ed25519Pair(b).private)
	require.NoError(b, err)
	var size int
	b.ReportAllocs()
	for b.Loop() {
		st, err := NewStatement(run)
		if err != nil {
			b.Fatal(err)
		}
		env, err := Sign(context.Background(), st, signer)
		if err != nil {
			b.Fatal(err)
		}
		size = len(env)
	}
	b.SetBytes(int64(size))
}

// BenchmarkVerify: reading and verifying that envelope (no report to
// re-hash: its one report is given as absent, a broken rule).
func BenchmarkVerify(b *testing.B) {
	keys := ed25519Pair(b)
	signer, err := LoadSigner(keys.private)
	require.NoError(b, err)
	verifier, err := LoadVerifier(keys.public)
	require.NoError(b, err)
	st, err := NewStatement(bigRun(b))
	require.NoError(b, err)
	env, err := Sign(context.Background(), st, signer)
	require.NoError(b, err)
	b.SetBytes(int64(len(env)))
	b.ReportAllocs()
	for b.Loop() {
		e, err := ReadEnvelope(bytes.NewReader(env))
		if err != nil {
			b.Fatal(err)
		}
		v := Verify(context.Background(), e, verifier, Want{Tree: treeA, Commit: commitA, Dir: b.TempDir()})
		if len(v.Problems) != 1 {
			b.Fatalf("%q", v.Problems)
		}
	}
}
