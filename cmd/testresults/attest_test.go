package main

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attestKeys writes an Ed25519 and an ECDSA P-256 key pair into dir, as
// openssl genpkey and openssl pkey -pubout write them, and returns the
// private and public key files of each.
func attestKeys(t *testing.T, dir string) map[string][2]string {
	t.Helper()
	write := func(name, typ string, der []byte, err error) string {
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return p
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	edPriv, err1 := x509.MarshalPKCS8PrivateKey(priv)
	edPub, err2 := x509.MarshalPKIXPublicKey(pub)
	ecPriv, err3 := x509.MarshalPKCS8PrivateKey(ec)
	ecPub, err4 := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	return map[string][2]string{
		"ed25519":    {write("ed.pem", "PRIVATE KEY", edPriv, err1), write("ed.pub", "PUBLIC KEY", edPub, err2)},
		"ecdsa-p256": {write("ec.pem", "PRIVATE KEY", ecPriv, err3), write("ec.pub", "PUBLIC KEY", ecPub, err4)},
	}
}

// statementOf decodes the statement an attestation file carries.
func statementOf(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var env struct{ Payload string }
	require.NoError(t, json.Unmarshal(b, &env))
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	require.NoError(t, err)
	var st map[string]any
	require.NoError(t, json.Unmarshal(payload, &st))
	return st
}

// TestAttestTestResultsJSON: a real `run` of a check in a git work tree
// writes TEST-RESULTS.json; attest signs it into the report folder; verify
// finds the report beside the attestation and the commit from HEAD.
func TestAttestTestResultsJSON(t *testing.T) {
	_, err := exec.LookPath("git")
	needRunner(t, "git", err)
	repo := gitRepo(t, map[string]string{".gitignore": "results/\n"})
	commit := git(t, repo, "rev-parse", "HEAD")
	keys := attestKeys(t, t.TempDir())
	passing := runnerFile(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	t.Chdir(repo)

	code, _, stderr := runInProc(t, nil, "--kind", "after_turn", "--out", "results", "-q",
		"--", "sh", "-c", `cp "$0" "$HANGAR_TESTS_DIR/junit.xml"`, passing)
	require.Equal(t, exitOK, code, stderr)
	att := filepath.Join("results", "run.intoto.json")
	code, _, stderr = runCmdEnv(t, map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/app", "GITHUB_RUN_ID": "42"},
		"attest", "results/TEST-RESULTS.json", "--key", keys["ed25519"][0], "-o", att)
	require.Equal(t, exitOK, code, stderr)

	st := statementOf(t, att)
	subject := st["subject"].([]any)[0].(map[string]any)["digest"].(map[string]any)
	assert.Equal(t, commit, subject["gitCommit"])
	assert.Len(t, subject["testresultsTree"], 64, "the run's tree digest")
	pred := st["predicate"].(map[string]any)
	assert.Equal(t, "PASSED", pred["result"])
	assert.Equal(t, "https://github.com/acme/app/actions/runs/42", pred["url"])
	cfg := pred["configuration"].([]any)
	assert.Equal(t, "junit.xml", cfg[0].(map[string]any)["name"], "named relative to the attestation's folder")

	code, out, stderr := runCmd(t, "verify-attestation", "--key", keys["ed25519"][1], att)
	require.Equal(t, exitOK, code, "%s%s", out, stderr)
	assert.Equal(t, "verified: commit "+commit+", result PASSED, 1 report re-hashed\n", out)

	// One byte changed in the JUnit file the run read.
	junit := filepath.Join("results", "junit.xml")
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	b[len(b)-2] ^= 0x20
	require.NoError(t, os.WriteFile(junit, b, 0o644))
	code, out, _ = runCmd(t, "verify-attestation", "--key", keys["ed25519"][1], att)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, out, "rejected (1 reason)\n  - report junit.xml (results/junit.xml): sha256 ")
	assert.Contains(t, out, "the file changed")

	// A run on the commit with a change not in it is not a run on the
	// commit, even when the change is hidden from git status.
	require.NoError(t, os.WriteFile("extra.txt", []byte("not committed\n"), 0o644))
	git(t, repo, "add", "extra.txt")
	git(t, repo, "commit", "-q", "-m", "extra")
	commit = git(t, repo, "rev-parse", "HEAD")
	require.NoError(t, os.WriteFile("extra.txt", []byte("changed\n"), 0o644))
	git(t, repo, "update-index", "--assume-unchanged", "extra.txt")
	code, _, stderr = runInProc(t, nil, "--kind", "after_turn", "--out", "results", "-q",
		"--", "sh", "-c", `cp "$0" "$HANGAR_TESTS_DIR/junit.xml"`, passing)
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = runCmd(t, "attest", "results/TEST-RESULTS.json", "--key", keys["ed25519"][0], "-o", att)
	require.Equal(t, exitOK, code, stderr)
	code, out, _ = runCmd(t, "verify-attestation", "--key", keys["ed25519"][1], att)
	assert.Equal(t, exitFailed, code, out)
	assert.Contains(t, out, "rejected (1 reason)\n  - tree: the tests ran on working tree ")
	assert.Contains(t, out, "not on the commit's own ")
	code, out, _ = runCmd(t, "verify-attestation", "--key", keys["ed25519"][1], "--any-tree", att)
	assert.Equal(t, exitOK, code, out)
	assert.Equal(t, "verified: commit "+commit+", result PASSED, 1 report re-hashed\n", out)
}

func TestAttestUsage(t *testing.T) {
	dir := t.TempDir()
	keys := attestKeys(t, dir)
	run := writeRun(t, dir, "r1", "after_turn", "", nil)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{run}, exitUsage, "--key is required"},
		{[]string{"--key", keys["ed25519"][0]}, exitUsage, "want one RUN.json"},
		{[]string{"--predicate-only", "--key", keys["ed25519"][0], run}, exitUsage, "no --key"},
		{[]string{"--key", keys["ed25519"][0], run}, exitRejected, "the run names no commit"},
		{[]string{"--key", keys["ed25519"][0], filepath.Join(dir, "absent.json")}, exitRejected, "absent.json"},
	} {
		code, _, stderr := runCmd(t, append([]string{"attest"}, tc.args...)...)
		assert.Equal(t, tc.code, code, "%q: %s", tc.args, stderr)
		assert.Contains(t, stderr, tc.want, "%q", tc.args)
	}
}

func TestAttestKeyOfTheWrongKind(t *testing.T) {
	dir := t.TempDir()
	keys := attestKeys(t, dir)
	run := parsedRun(t, dir, "after_turn", runnerFile(t, "maven/reports/TEST-calc.SeparatorTest.xml"))
	code, _, stderr := runCmd(t, "attest", "--key", keys["ed25519"][1], run)
	assert.Equal(t, exitRejected, code)
	assert.Contains(t, stderr, "a public key: signing needs the private key")
}

func TestAttestPredicateOnly(t *testing.T) {
	dir := t.TempDir()
	run := parsedRun(t, dir, "after_turn", runnerFile(t, "maven/reports/TEST-calc.SeparatorTest.xml"))
	code, out, stderr := runCmd(t, "attest", "--predicate-only", run)
	require.Equal(t, exitOK, code, stderr)
	var pred map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &pred))
	assert.Equal(t, "PASSED", pred["result"])
	assert.NotContains(t, pred, "predicateType", "the bare predicate")
	assert.Equal(t, true, pred["testresultsRun"].(map[string]any)["counted"])
}

// TestAttestRefusesResultsThatContradictThemselves: a TEST-RESULTS.json
// whose comparison says a test newly fails while its run passes every
// test, or whose run counts fewer failures than its cases hold, is
// refused, never signed PASSED.
func TestAttestRefusesResultsThatContradictThemselves(t *testing.T) {
	dir := t.TempDir()
	keys := attestKeys(t, dir)
	runFile := parsedRun(t, dir, "after_turn", runnerFile(t, "maven/reports/TEST-calc.SeparatorTest.xml"))
	b, err := os.ReadFile(runFile)
	require.NoError(t, err)
	edit := func(name string, f func(m map[string]any)) string {
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		f(m)
		out, err := json.Marshal(m)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, out, 0o644))
		return p
	}
	// The honest file is signed PASSED.
	code, _, stderr := runCmd(t, "attest", "--key", keys["ed25519"][0], "-o", filepath.Join(dir, "ok.intoto.json"), runFile)
	require.Equal(t, exitOK, code, stderr)

	for name, f := range map[string]func(m map[string]any){
		"a new failure the run passes": func(m map[string]any) {
			var id string
			for k := range m["cases"].(map[string]any) {
				id = k
			}
			m["base_id"], m["available"], m["unavailable_reason"] = "base-run", true, nil
			m["new_failures"] = []any{map[string]any{"id": id, "outcome": "failed", "message": nil, "flaky": false}}
			m["base_failures"], m["fixed"], m["flaky_on_list"] = []any{}, []any{}, []any{}
			m["coverage_delta"], m["output_failures"] = nil, []any{}
		},
		"a failing case the counts do not count": func(m map[string]any) {
			for k := range m["cases"].(map[string]any) {
				m["cases"].(map[string]any)[k] = "failed"
				break
			}
		},
	} {
		p := edit("results.json", f)
		att := filepath.Join(dir, "bad.intoto.json")
		code, _, stderr := runCmd(t, "attest", "--key", keys["ed25519"][0], "-o", att, p)
		assert.Equal(t, exitRejected, code, "%s: %s", name, stderr)
		assert.Contains(t, stderr, "invalid run", name)
		assert.Contains(t, stderr, map[string]string{
			"a new failure the run passes":           "does not fail in run",
			"a failing case the counts do not count": "more than failed + errors (0)",
		}[name], name)
		assert.NoFileExists(t, att, name)
	}
}
