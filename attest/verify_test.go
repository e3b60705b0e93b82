package attest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hangar-dev/testresults/testrun"
)

// attested copies the reports into a fresh folder, reads them into a run
// of kind, and signs its statement with keys, named relative to the
// folder. It returns the folder, the envelope's bytes and the copies.
func attested(t *testing.T, keys keyPair, kind testrun.Kind, reports ...string) (string, []byte, []string) {
	t.Helper()
	dir := t.TempDir()
	var copies []string
	for _, r := range reports {
		b, err := os.ReadFile(r)
		require.NoError(t, err)
		p := filepath.Join(dir, "reports", filepath.Base(r))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		copies = append(copies, p)
	}
	run := runOf(t, kind, copies...)
	st, err := NewStatement(run, WithReportsRelativeTo(dir))
	require.NoError(t, err)
	signer, err := LoadSigner(keys.private)
	require.NoError(t, err)
	env, err := Sign(context.Background(), st, signer)
	require.NoError(t, err)
	return dir, env, copies
}

func verify(t *testing.T, env []byte, pub []byte, want Want) *Verification {
	t.Helper()
	e, err := ReadEnvelope(bytes.NewReader(env))
	require.NoError(t, err)
	v, err := LoadVerifier(pub)
	require.NoError(t, err)
	return Verify(context.Background(), e, v, want)
}

func TestVerifyRoundTrip(t *testing.T) {
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	cov := runnerReport(t, "jest/reports/cobertura-coverage.xml")
	for name, keys := range map[string]keyPair{"ed25519": ed25519Pair(t), "ecdsa-p256": p256Pair(t)} {
		t.Run(name, func(t *testing.T) {
			dir, env, copies := attested(t, keys, testrun.KindAfterTurn, sep, cov)
			v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Dir: dir})
			require.True(t, v.OK(), "%q", v.Problems)
			assert.Equal(t, 2, v.Reports)
			assert.Equal(t, "PASSED", v.Predicate.GetResult())

			// The same reports given by path, from anywhere.
			v = verify(t, env, keys.public, Want{Tree: treeA, Commit: strings.ToUpper(commitA), Reports: copies, Dir: t.TempDir()})
			require.True(t, v.OK(), "%q", v.Problems)
			assert.Equal(t, 2, v.Reports)
		})
	}
}

func TestVerifyBrokenRules(t *testing.T) {
	keys := ed25519Pair(t)
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	dir, env, copies := attested(t, keys, testrun.KindAfterTurn, sep)

	t.Run("one byte changed in the JUnit file", func(t *testing.T) {
		d := t.TempDir()
		b, err := os.ReadFile(copies[0])
		require.NoError(t, err)
		i := bytes.Index(b, []byte(`name="`)) + len(`name="`)
		b[i] ^= 0x01
		p := filepath.Join(d, "reports", filepath.Base(copies[0]))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Dir: d})
		require.Len(t, v.Problems, 1, "%q", v.Problems)
		assert.Contains(t, v.Problems[0], "report reports/TEST-calc.SeparatorTest.xml")
		assert.Contains(t, v.Problems[0], "the file changed")
		v = verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Reports: []string{p}})
		require.Len(t, v.Problems, 1, "%q", v.Problems)
		assert.Contains(t, v.Problems[0], p)
	})
	t.Run("report missing", func(t *testing.T) {
		v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Dir: t.TempDir()})
		require.Len(t, v.Problems, 1, "%q", v.Problems)
		assert.Contains(t, v.Problems[0], "report reports/TEST-calc.SeparatorTest.xml")
	})
	t.Run("another key", func(t *testing.T) {
		for _, other := range []keyPair{ed25519Pair(t), p256Pair(t)} {
			v := verify(t, env, other.public, Want{Tree: treeA, Commit: commitA, Dir: dir})
			require.False(t, v.OK())
			assert.Contains(t, v.Problems[0], "signature: not signed by the key given")
			assert.Contains(t, v.Problems, "reports not re-hashed: the statement is not signed by the key given")
		}
	})
	t.Run("another commit", func(t *testing.T) {
		v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitB, Dir: dir})
		assert.Equal(t, []string{"subject: the tests ran on commit " + commitA + ", not on " + commitB}, v.Problems)
	})
	t.Run("an abbreviated commit", func(t *testing.T) {
		v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA[:12], Dir: dir})
		require.Len(t, v.Problems, 1)
		assert.Contains(t, v.Problems[0], "not a full commit id")
	})
	t.Run("a report given that is not attested", func(t *testing.T) {
		extra := filepath.Join(t.TempDir(), "other.xml")
		require.NoError(t, os.WriteFile(extra, []byte("<testsuite/>"), 0o644))
		v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Reports: []string{copies[0], extra}})
		assert.Equal(t, []string{"report " + extra + " was given but the attestation names no such report"}, v.Problems)
	})
	t.Run("payload changed after signing", func(t *testing.T) {
		var e map[string]any
		require.NoError(t, json.Unmarshal(env, &e))
		payload, err := base64.StdEncoding.DecodeString(e["payload"].(string))
		require.NoError(t, err)
		forged := bytes.ReplaceAll(payload, []byte(commitA), []byte(commitB))
		e["payload"] = base64.StdEncoding.EncodeToString(forged)
		b, err := json.Marshal(e)
		require.NoError(t, err)
		v := verify(t, b, keys.public, Want{Tree: treeA, Commit: commitB, Dir: dir})
		require.False(t, v.OK())
		assert.Contains(t, v.Problems[0], "signature: not signed by the key given")
	})
	t.Run("no signature", func(t *testing.T) {
		var e map[string]any
		require.NoError(t, json.Unmarshal(env, &e))
		e["signatures"] = []any{}
		b, err := json.Marshal(e)
		require.NoError(t, err)
		v := verify(t, b, keys.public, Want{Tree: treeA, Commit: commitA, Dir: dir})
		assert.Contains(t, v.Problems, "signature: the envelope is not signed")
	})
}

func TestVerifyResultRules(t *testing.T) {
	keys := p256Pair(t)
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	calc := runnerReport(t, "maven/reports/TEST-calc.CalcTest.xml")

	t.Run("failed", func(t *testing.T) {
		dir, env, _ := attested(t, keys, testrun.KindAfterTurn, calc)
		v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Dir: dir})
		assert.Equal(t, []string{"result is FAILED, not PASSED: 2 failed and 1 errored tests"}, v.Problems)
	})
	t.Run("not counted", func(t *testing.T) {
		dir, env, _ := attested(t, keys, testrun.KindGate, sep)
		v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Dir: dir})
		assert.Equal(t, []string{
			`the run is not counted (trusted false, complete true, counts {"total":3,"passed":3,"failed":0,"errors":0,"skipped":0,"flaky":0})`,
			"result is FAILED, not PASSED: the run is not counted: not trusted (kind gate)",
		}, v.Problems)
	})
}

// TestVerifyTreeRules: the subject's tree must be the one asked for (the
// commit's own) unless any tree is allowed; a statement naming none, or
// a verification asked without a tree, fails closed.
func TestVerifyTreeRules(t *testing.T) {
	keys := ed25519Pair(t)
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	dir, env, _ := attested(t, keys, testrun.KindAfterTurn, sep)
	assert.Empty(t, verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Dir: dir}).Problems)
	assert.Empty(t, verify(t, env, keys.public, Want{Tree: strings.ToUpper(treeA), Commit: commitA, Dir: dir}).Problems)
	assert.Empty(t, verify(t, env, keys.public, Want{AnyTree: true, Commit: commitA, Dir: dir}).Problems)
	other := strings.Repeat("ab", 32)
	assert.Equal(t, []string{"tree: the tests ran on working tree " + treeA + ", not on the commit's own " + other + ": uncommitted changes, untracked files or files not checked out"},
		verify(t, env, keys.public, Want{Tree: other, Commit: commitA, Dir: dir}).Problems)
	assert.Equal(t, []string{"tree: no working-tree digest to check the run's against (the commit's own, or any tree allowed)"},
		verify(t, env, keys.public, Want{Commit: commitA, Dir: dir}).Problems)
	assert.Equal(t, []string{`tree: the digest asked for, "e3b0c442", is not 64 hex digits`},
		verify(t, env, keys.public, Want{Tree: treeA[:8], Commit: commitA, Dir: dir}).Problems)

	// A run that knows no tree.
	run := runOf(t, testrun.KindAfterTurn, sep)
	run.Tree = ""
	st, err := NewStatement(run)
	require.NoError(t, err)
	b, err := MarshalStatement(st)
	require.NoError(t, err)
	noTree := signStatement(t, keys, b)
	assert.Equal(t, []string{"tree: the subject names no testresultsTree: the tests may have run with changes not in the commit"},
		verify(t, noTree, keys.public, Want{Tree: treeA, Commit: commitA, Reports: []string{sep}}).Problems)
	assert.Empty(t, verify(t, noTree, keys.public, Want{AnyTree: true, Commit: commitA, Reports: []string{sep}}).Problems)
}

// signStatement signs a statement's bytes as given, for statements this
// package would never write.
func signStatement(t *testing.T, keys keyPair, payload []byte) []byte {
	t.Helper()
	signer, err := LoadSigner(keys.private)
	require.NoError(t, err)
	st := statementFromJSON(t, payload)
	env, err := Sign(context.Background(), st, signer)
	require.NoError(t, err)
	return env
}

func TestVerifySignedLies(t *testing.T) {
	keys := ed25519Pair(t)
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	run := runOf(t, testrun.KindGate, sep)
	st, err := NewStatement(run)
	require.NoError(t, err)
	good, err := MarshalStatement(st)
	require.NoError(t, err)
	sum := sha256.Sum256(nil)
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"PASSED for a run not counted", func(m map[string]any) { pred(m)["result"] = "PASSED" },
			"result PASSED contradicts the run's facts in the extension, which give FAILED"},
		{"a key of the extension in another case", func(m map[string]any) {
			pred(m)["result"] = "PASSED"
			pred(m)[ExtensionKey].(map[string]any)["Counted"] = true
		}, `predicate: the testresultsRun extension has an unknown key "Counted"`},
		{"counts that do not add up", func(m map[string]any) {
			pred(m)[ExtensionKey].(map[string]any)["counts"].(map[string]any)["failed"] = -1.0
		}, `the run's counts in the extension are not valid counts: {"total":3,"passed":3,"failed":-1,"errors":0,"skipped":0,"flaky":0}`},
		{"no extension", func(m map[string]any) { delete(pred(m), ExtensionKey) },
			"predicate: no testresultsRun extension: whether the run is counted is unknown"},
		{"another predicate type", func(m map[string]any) { m["predicateType"] = "https://slsa.dev/provenance/v1" },
			`predicate type is "https://slsa.dev/provenance/v1", not "https://in-toto.io/attestation/test-result/v0.1"`},
		{"unknown result", func(m map[string]any) { pred(m)["result"] = "SKIPPED" },
			`predicate: result "SKIPPED" is not PASSED, WARNED or FAILED`},
		{"two subjects", func(m map[string]any) {
			m["subject"] = append(m["subject"].([]any), map[string]any{"digest": map[string]any{"sha256": hex.EncodeToString(sum[:])}})
		}, "subject: the statement has 2 subjects, not one commit"},
		{"a configuration entry of no known role", func(m map[string]any) {
			cfg := pred(m)["configuration"].([]any)
			pred(m)["configuration"] = append(cfg, map[string]any{"name": "x", "digest": map[string]any{"sha256": hex.EncodeToString(sum[:])}})
		}, `configuration entry 2 ("x"): role "" is neither report nor command`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal(good, &m))
			tc.edit(m)
			b, err := json.Marshal(m)
			require.NoError(t, err)
			env := signStatement(t, keys, b)
			v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Reports: []string{sep}})
			require.False(t, v.OK())
			assert.Contains(t, v.Problems, tc.want)
		})
	}
}

// A counted run's statement, signed with the right key, but whose
// extension says more than its facts give: its flags are recomputed, and
// the statement never verifies.
func TestVerifySignedLiesOfACountedRun(t *testing.T) {
	keys := ed25519Pair(t)
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	run := runOf(t, testrun.KindAfterTurn, sep)
	require.True(t, run.Counted())
	st, err := NewStatement(run)
	require.NoError(t, err)
	good, err := MarshalStatement(st)
	require.NoError(t, err)
	v := verify(t, signStatement(t, keys, good), keys.public, Want{Tree: treeA, Commit: commitA, Reports: []string{sep}})
	require.True(t, v.OK(), "%v", v.Problems)
	ext := func(m map[string]any) map[string]any { return pred(m)[ExtensionKey].(map[string]any) }
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"a gate run, incomplete, that says counted", func(m map[string]any) {
			e := ext(m)
			e["kind"], e["trusted"], e["complete"], e["incomplete_reasons"] = "gate", false, false, []any{"no report found"}
		}, "the extension says counted true, but its facts give false (trusted false, complete false with 1 incomplete reasons"},
		{"complete beside incomplete reasons", func(m map[string]any) {
			ext(m)["incomplete_reasons"] = []any{"a report was cut"}
		}, "the extension says complete, yet gives 1 incomplete reasons"},
		{"no test ran", func(m map[string]any) {
			c := ext(m)["counts"].(map[string]any)
			c["total"], c["passed"] = 0.0, 0.0
		}, "the extension says counted true, but its facts give false"},
		{"a grader below isolated that says trusted", func(m map[string]any) {
			e := ext(m)
			e["kind"], e["grade"] = "grader", "none"
		}, "the extension says trusted true, but kind grader, grade none gives false"},
		{"no report named", func(m map[string]any) {
			var left []any
			for _, c := range pred(m)["configuration"].([]any) {
				if c.(map[string]any)["annotations"].(map[string]any)[RoleAnnotation] != RoleReport {
					left = append(left, c)
				}
			}
			pred(m)["configuration"] = left
		}, "the run is counted, yet the statement names no report it read"},
		{"a configuration entry of no known role", func(m map[string]any) {
			cfg := pred(m)["configuration"].([]any)
			pred(m)["configuration"] = append(cfg, map[string]any{"name": "x", "digest": map[string]any{"sha256": strings.Repeat("0", 64)}})
		}, `role "" is neither report nor command`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal(good, &m))
			tc.edit(m)
			b, err := json.Marshal(m)
			require.NoError(t, err)
			v := verify(t, signStatement(t, keys, b), keys.public, Want{Tree: treeA, Commit: commitA})
			require.False(t, v.OK())
			assert.Condition(t, func() bool {
				for _, p := range v.Problems {
					if strings.Contains(p, tc.want) {
						return true
					}
				}
				return false
			}, "%q not in %q", tc.want, v.Problems)
			assert.Len(t, v.Problems, len(slices.Compact(slices.Sorted(slices.Values(v.Problems)))), "each problem once: %q", v.Problems)
		})
	}
}

func statementFromJSON(t *testing.T, b []byte) *intoto.Statement {
	t.Helper()
	st := &intoto.Statement{}
	require.NoError(t, protojson.Unmarshal(b, st))
	return st
}

func pred(m map[string]any) map[string]any { return m["predicate"].(map[string]any) }
