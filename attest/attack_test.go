package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// A hostile reviewer's attempts at an attestation that verifies when it
// should not, or at a verification that hangs or reads what it should not.

// passingStatement is the JSON form of the statement about a counted run
// of the separator tests (3 passed), and the report.
func passingStatement(t *testing.T) ([]byte, string) {
	t.Helper()
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	st, err := NewStatement(runOf(t, testrun.KindAfterTurn, sep))
	require.NoError(t, err)
	b, err := MarshalStatement(st)
	require.NoError(t, err)
	return b, sep
}

func editStatement(t *testing.T, b []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	edit(m)
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return out
}

// A signed statement whose result is PASSED (or WARNED) while it lists
// failed tests says two things at once; a verifier reading failedTests
// would see failures. It is refused.
func TestAttackPassedWithFailedTestsListed(t *testing.T) {
	keys := ed25519Pair(t)
	good, sep := passingStatement(t)
	v := verify(t, signStatement(t, keys, good), keys.public, Want{Tree: treeA, Commit: commitA, Reports: []string{sep}})
	require.True(t, v.OK(), v.Problems)

	lie := editStatement(t, good, func(m map[string]any) {
		pred(m)["failedTests"] = []any{"calc.SeparatorTest.hidden"}
	})
	v = verify(t, signStatement(t, keys, lie), keys.public, Want{Tree: treeA, Commit: commitA, Reports: []string{sep}})
	require.False(t, v.OK())
	assert.Contains(t, v.Problems, "result PASSED, yet the predicate lists 1 failed tests (calc.SeparatorTest.hidden)")
}

// A run whose counts say every test passed while its cases keep a failing
// one contradicts itself: it is refused, as every reader of a run refuses
// it, rather than attested from its counts alone.
func TestAttackRunCountsHideAFailingCase(t *testing.T) {
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	run := runOf(t, testrun.KindAfterTurn, sep)
	require.True(t, run.Counted())
	for id := range run.Cases {
		run.Cases[id] = testrun.OutcomeFailed
		break
	}
	_, err := NewStatement(run)
	require.ErrorIs(t, err, ErrRun)
	require.ErrorIs(t, err, testrun.ErrInvalidRun)

	run = runOf(t, testrun.KindAfterTurn, sep)
	run.Failures = []testrun.Failure{{ID: "calc.SeparatorTest.hidden", Outcome: testrun.OutcomeError}}
	_, err = NewStatement(run)
	require.ErrorIs(t, err, testrun.ErrInvalidRun)
}

// Signatures: one by another key under the right key id, or a right
// signature over another payload type, never verify.
func TestAttackSignatureGames(t *testing.T) {
	keys, other := p256Pair(t), p256Pair(t)
	good, sep := passingStatement(t)
	want := Want{Tree: treeA, Commit: commitA, Reports: []string{sep}}

	t.Run("another key's signature under our key id", func(t *testing.T) {
		e, err := ReadEnvelope(bytes.NewReader(signStatement(t, other, good)))
		require.NoError(t, err)
		ver, err := LoadVerifier(keys.public)
		require.NoError(t, err)
		id, err := ver.KeyID()
		require.NoError(t, err)
		e.Signatures[0].KeyID = id
		v := Verify(context.Background(), e, ver, want)
		require.False(t, v.OK())
		assert.Contains(t, v.Problems[0], "signature: not signed by the key given")
	})
	t.Run("a valid signature beside a forged one", func(t *testing.T) {
		e, err := ReadEnvelope(bytes.NewReader(signStatement(t, keys, good)))
		require.NoError(t, err)
		e.Signatures = append([]dsse.Signature{{KeyID: e.Signatures[0].KeyID, Sig: "AAAA"}}, e.Signatures...)
		ver, err := LoadVerifier(keys.public)
		require.NoError(t, err)
		// One signature is the key's over this very payload: that is the
		// rule, and the forged one adds nothing.
		v := Verify(context.Background(), e, ver, want)
		assert.True(t, v.OK(), v.Problems)
	})
	t.Run("signed over another payload type", func(t *testing.T) {
		signer, err := LoadSigner(keys.private)
		require.NoError(t, err)
		es, err := dsse.NewEnvelopeSigner(signer)
		require.NoError(t, err)
		for _, pt := range []string{"application/json", "application/vnd.in-toto+JSON", PayloadType + "; charset=utf-8"} {
			e, err := es.SignPayload(context.Background(), pt, good)
			require.NoError(t, err)
			ver, err := LoadVerifier(keys.public)
			require.NoError(t, err)
			v := Verify(context.Background(), e, ver, want)
			require.False(t, v.OK(), pt)
			assert.Contains(t, v.Problems, `payload type is "`+pt+`", not "`+PayloadType+`"`)
			// Relabelled after signing, the signature no longer holds.
			e.PayloadType = PayloadType
			v = Verify(context.Background(), e, ver, want)
			require.False(t, v.OK(), pt)
		}
	})
}

// Subjects and digests: the commit in upper case is the same commit; a
// commit under another algorithm's name, or a subject for each of two
// commits, is not.
func TestAttackSubjectDigests(t *testing.T) {
	keys := ed25519Pair(t)
	good, sep := passingStatement(t)
	want := Want{Tree: treeA, Commit: commitA, Reports: []string{sep}}
	subject := func(m map[string]any) map[string]any {
		return m["subject"].([]any)[0].(map[string]any)["digest"].(map[string]any)
	}
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		ok   bool
	}{
		{"gitCommit in upper case", func(m map[string]any) {
			subject(m)["gitCommit"] = "3F9D2C1B0A8E7D6C5B4A39281706F5E4D3C2B1A0"
		}, true},
		{"the commit as sha1", func(m map[string]any) {
			d := subject(m)
			d["sha1"] = d["gitCommit"]
			delete(d, "gitCommit")
		}, false},
		{"the commit key in another case", func(m map[string]any) {
			d := subject(m)
			d["GitCommit"] = d["gitCommit"]
			delete(d, "gitCommit")
		}, false},
		{"two subjects, the asked commit second", func(m map[string]any) {
			m["subject"] = []any{
				map[string]any{"digest": map[string]any{"gitCommit": commitB}},
				m["subject"].([]any)[0],
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := verify(t, signStatement(t, keys, editStatement(t, good, tc.edit)), keys.public, want)
			assert.Equal(t, tc.ok, v.OK(), v.Problems)
		})
	}
}

// Reports found beside the attestation: whatever the path the name leads
// to (a symbolic link, a ../ name), the file must have the attested bytes,
// and one that is not a regular file is refused without waiting on it.
func TestAttackReportFiles(t *testing.T) {
	keys := ed25519Pair(t)
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")

	t.Run("a symbolic link to other bytes", func(t *testing.T) {
		dir, env, copies := attested(t, keys, testrun.KindAfterTurn, sep)
		other := filepath.Join(t.TempDir(), "other.xml")
		require.NoError(t, os.WriteFile(other, []byte("<testsuite/>"), 0o644))
		require.NoError(t, os.Remove(copies[0]))
		require.NoError(t, os.Symlink(other, copies[0]))
		v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Dir: dir})
		require.False(t, v.OK())
		assert.Contains(t, v.Problems[0], "the file changed")
	})
	t.Run("a named pipe in its place", func(t *testing.T) {
		dir, env, copies := attested(t, keys, testrun.KindAfterTurn, sep)
		require.NoError(t, os.Remove(copies[0]))
		require.NoError(t, syscall.Mkfifo(copies[0], 0o644))
		v := verify(t, env, keys.public, Want{Tree: treeA, Commit: commitA, Dir: dir})
		require.False(t, v.OK())
		assert.Contains(t, v.Problems[0], "not a regular file")
	})
	t.Run("a named pipe opened directly", func(t *testing.T) {
		// hashFile opens before it looks: a pipe swapped in after any
		// check is still never waited on.
		p := filepath.Join(t.TempDir(), "pipe")
		require.NoError(t, syscall.Mkfifo(p, 0o644))
		f, err := openReport(p)
		if err == nil {
			f.Close()
		}
		require.ErrorIs(t, err, errNotRegular)
	})
	t.Run("a ../ name still binds the bytes", func(t *testing.T) {
		good, _ := passingStatement(t)
		dir := t.TempDir()
		att := filepath.Join(dir, "att")
		require.NoError(t, os.Mkdir(att, 0o755))
		b, err := os.ReadFile(sep)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "junit.xml"), append(b, ' '), 0o644))
		lie := editStatement(t, good, func(m map[string]any) {
			pred(m)["configuration"].([]any)[0].(map[string]any)["name"] = "../junit.xml"
		})
		v := verify(t, signStatement(t, keys, lie), keys.public, Want{Tree: treeA, Commit: commitA, Dir: att})
		require.False(t, v.OK())
		assert.Contains(t, v.Problems[0], "the file changed")
	})
}

// An unsigned (or wrongly signed) statement's report names are never
// opened, wherever they point.
func TestAttackUnsignedNamesAreNotOpened(t *testing.T) {
	keys, other := ed25519Pair(t), ed25519Pair(t)
	good, _ := passingStatement(t)
	p := filepath.Join(t.TempDir(), "pipe")
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	lie := editStatement(t, good, func(m map[string]any) {
		pred(m)["configuration"].([]any)[0].(map[string]any)["name"] = p
	})
	v := verify(t, signStatement(t, other, lie), keys.public, Want{Tree: treeA, Commit: commitA, Dir: t.TempDir()})
	require.False(t, v.OK())
	assert.Contains(t, v.Problems, "reports not re-hashed: the statement is not signed by the key given")
	assert.Equal(t, 0, v.Reports)
}

// The predicate's url is a ResourceURI: a statement whose url is not an
// absolute URI does not validate against the predicate's rules, and none
// is written.
func TestAttackURLNotAURI(t *testing.T) {
	keys := ed25519Pair(t)
	good, sep := passingStatement(t)
	run := runOf(t, testrun.KindAfterTurn, sep)
	for _, u := range []string{"not a url", "runs/42", "https://ci.example/run 42", "https://ci.example/\x1b[2Jrun", "https://ci.example/<script>"} {
		lie := editStatement(t, good, func(m map[string]any) { pred(m)["url"] = u })
		v := verify(t, signStatement(t, keys, lie), keys.public, Want{Tree: treeA, Commit: commitA, Reports: []string{sep}})
		require.False(t, v.OK(), u)
		assert.Contains(t, v.Problems, `predicate: url `+fmt.Sprintf("%q", u)+` is not an absolute URI (a ResourceURI)`)
		_, err := NewStatement(run, WithURL(u))
		require.Error(t, err, u)
	}
	for _, u := range []string{"https://github.com/acme/app/actions/runs/42/attempts/1", "https://gitlab.example/acme/app/-/jobs/7?x=%20y", "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"} {
		lie := editStatement(t, good, func(m map[string]any) { pred(m)["url"] = u })
		v := verify(t, signStatement(t, keys, lie), keys.public, Want{Tree: treeA, Commit: commitA, Reports: []string{sep}})
		assert.True(t, v.OK(), "%s: %v", u, v.Problems)
		_, err := NewStatement(run, WithURL(u))
		require.NoError(t, err, u)
	}
}

// Huge strings in an envelope, signed or not, are not repeated whole in
// its problems: a commit, a key id, a configuration name or role of a
// megabyte each make a few lines, not megabytes.
func TestAttackHugeStringsMakeBriefProblems(t *testing.T) {
	keys, other := ed25519Pair(t), ed25519Pair(t)
	good, sep := passingStatement(t)
	huge := strings.Repeat("A", 1<<20)
	lie := editStatement(t, good, func(m map[string]any) {
		m["subject"].([]any)[0].(map[string]any)["digest"].(map[string]any)["gitCommit"] = huge
		cfg := pred(m)["configuration"].([]any)
		cfg[0].(map[string]any)["name"] = huge
		cfg[0].(map[string]any)["annotations"].(map[string]any)["role"] = huge
		pred(m)[ExtensionKey].(map[string]any)["result_reasons"] = []any{huge}
		pred(m)["result"] = "FAILED"
	})
	e, err := ReadEnvelope(bytes.NewReader(signStatement(t, other, lie)))
	require.NoError(t, err)
	e.Signatures[0].KeyID = huge
	ver, err := LoadVerifier(keys.public)
	require.NoError(t, err)
	v := Verify(context.Background(), e, ver, Want{Tree: treeA, Commit: commitA, Reports: []string{sep}})
	require.False(t, v.OK())
	n := 0
	for _, p := range v.Problems {
		n += len(p)
	}
	assert.Less(t, n, 16<<10, "%d problems of %d bytes", len(v.Problems), n)
}

// The extension and the predicate must agree: a FAILED result beside an
// extension whose facts pass, or a PASSED one beside counts with a
// failure, is refused for the contradiction, whichever side lies.
func TestAttackExtensionDisagreesWithResult(t *testing.T) {
	keys := ed25519Pair(t)
	good, sep := passingStatement(t)
	want := Want{Tree: treeA, Commit: commitA, Reports: []string{sep}}
	ext := func(m map[string]any) map[string]any { return pred(m)[ExtensionKey].(map[string]any) }
	for name, tc := range map[string]struct {
		edit func(m map[string]any)
		want string
	}{
		"FAILED with passing facts": {func(m map[string]any) { pred(m)["result"] = "FAILED" },
			"result FAILED contradicts the run's facts in the extension, which give PASSED"},
		"PASSED with a failure counted": {func(m map[string]any) {
			c := ext(m)["counts"].(map[string]any)
			c["passed"], c["failed"] = c["passed"].(float64)-1, 1.0
		}, "result PASSED contradicts the run's facts in the extension, which give FAILED"},
		"PASSED with the check's failure": {func(m map[string]any) {
			ext(m)["status"], ext(m)["exit_code"] = "failure", 1.0
		}, "result PASSED contradicts the run's facts in the extension, which give FAILED"},
		"counted beside a commit of its own": {func(m map[string]any) { ext(m)["commit"] = commitB },
			"the extension's commit " + commitB + " differs from the subject's"},
	} {
		v := verify(t, signStatement(t, keys, editStatement(t, good, tc.edit)), keys.public, want)
		require.False(t, v.OK(), name)
		assert.Contains(t, v.Problems, tc.want, name)
	}
}
