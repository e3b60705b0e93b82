package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

const (
	attCommit = "3f9d2c1b0a8e7d6c5b4a39281706f5e4d3c2b1a0"
	attOther  = "0123456789abcdef0123456789abcdef01234567"
	// attTree is the working-tree digest of the runs parsedRun makes.
	attTree = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

// runnerFile is a report a real runner wrote, in testdata/runners.
func runnerFile(t *testing.T, rel string) string {
	t.Helper()
	return filepath.Join(testcorpus.Root(t), "testdata", "runners", filepath.FromSlash(rel))
}

// parsedRun copies the reports into dir/reports, parses them with the
// parse command into dir/run.json (commit attCommit) and returns its path.
func parsedRun(t *testing.T, dir, kind string, reports ...string) string {
	t.Helper()
	var copies []string
	for _, r := range reports {
		b, err := os.ReadFile(r)
		require.NoError(t, err)
		p := filepath.Join(dir, "reports", filepath.Base(r))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		copies = append(copies, p)
	}
	code, out, stderr := runCmd(t, append([]string{"parse", "-q", "--kind", kind, "--commit", attCommit, "--tree", attTree, "--command", "make test"}, copies...)...)
	require.Equal(t, exitOK, code, stderr)
	p := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(p, []byte(out), 0o644))
	return p
}

// TestVerifyAttestationRoundTrip: real runs (a runner's reports in
// testdata, and real reports from the shared corpus) parsed, attested and
// verified through the command, with each key type; then each rule broken
// once.
func TestVerifyAttestationRoundTrip(t *testing.T) {
	keys := attestKeys(t, t.TempDir())
	runs := map[string][]string{
		"maven and jest coverage": {runnerFile(t, "maven/reports/TEST-calc.SeparatorTest.xml"), runnerFile(t, "jest/reports/cobertura-coverage.xml")},
	}
	if corpus := corpusDirOrEmpty(t); corpus != "" {
		runs["corpus pytest and jest"] = []string{filepath.Join(corpus, "pytest", "kosli-570-tests.xml"), filepath.Join(corpus, "jest-junit", "codecov-four-pass.xml")}
	}
	for name, reports := range runs {
		for kname, k := range keys {
			t.Run(name+"/"+kname, func(t *testing.T) {
				dir := t.TempDir()
				run := parsedRun(t, dir, "after_turn", reports...)
				att := filepath.Join(dir, "run.intoto.json")
				code, _, stderr := runCmd(t, "attest", run, "--key", k[0], "-o", att)
				require.Equal(t, exitOK, code, stderr)

				verify := func(args ...string) (int, string) {
					t.Helper()
					code, out, stderr := runCmd(t, append([]string{"verify-attestation", "--key", k[1]}, args...)...)
					return code, out + stderr
				}
				code, out := verify("--commit", attCommit, "--tree", attTree, att)
				require.Equal(t, exitOK, code, out)
				assert.Contains(t, out, "result PASSED, 2 reports re-hashed")

				// The reports given on the command line, from elsewhere.
				moved := t.TempDir()
				var given []string
				for _, r := range reports {
					b, err := os.ReadFile(r)
					require.NoError(t, err)
					p := filepath.Join(moved, filepath.Base(r))
					require.NoError(t, os.WriteFile(p, b, 0o644))
					given = append(given, p)
				}
				code, out = verify(append([]string{"--commit", attCommit, "--tree", attTree, att}, given...)...)
				require.Equal(t, exitOK, code, out)

				// One byte changed in the JUnit file: exit 1, naming it.
				b, err := os.ReadFile(given[0])
				require.NoError(t, err)
				b[len(b)/2] ^= 0x01
				require.NoError(t, os.WriteFile(given[0], b, 0o644))
				code, out = verify(append([]string{"--commit", attCommit, "--tree", attTree, att}, given...)...)
				assert.Equal(t, exitFailed, code, out)
				assert.Contains(t, out, "  - report reports/"+filepath.Base(reports[0])+" ("+given[0]+"): sha256 ")
				assert.Equal(t, 1, strings.Count(out, "\n  - "), out)

				// Another key, of each type.
				for _, other := range attestKeys(t, t.TempDir()) {
					code, out = verify("--key", other[1], "--commit", attCommit, "--tree", attTree, att)
					assert.Equal(t, exitFailed, code, out)
					assert.Contains(t, out, "  - signature: not signed by the key given")
				}

				// Another commit.
				code, out = verify("--commit", attOther, "--tree", attTree, att)
				assert.Equal(t, exitFailed, code, out)
				assert.Contains(t, out, "rejected (1 reason)\n  - subject: the tests ran on commit "+attCommit+", not on "+attOther+"\n")
				code, out = verify("--json", "--commit", attOther, "--tree", attTree, att)
				assert.Equal(t, exitFailed, code, out)
				assert.JSONEq(t, `{"verified": false, "commit": "`+attOther+`", "result": "PASSED", "reports_rehashed": 2,
					"problems": ["subject: the tests ran on commit `+attCommit+`, not on `+attOther+`"]}`, out)
			})
		}
	}
}

// corpusDirOrEmpty is the shared corpus, or "" where it is absent (outside
// CI): the runner reports of testdata still make the test.
func corpusDirOrEmpty(t *testing.T) string {
	t.Helper()
	c := filepath.Join(testcorpus.Root(t), "..", "shared", "corpus")
	if _, err := os.Stat(filepath.Join(c, "MANIFEST.tsv")); err != nil {
		if os.Getenv("CI") == "true" {
			return testcorpus.Dir(t)
		}
		return ""
	}
	return c
}

// TestVerifyAttestationNotCounted: a run that is not counted (a gate's, or
// one whose report was refused) is attested FAILED and never verifies.
func TestVerifyAttestationNotCounted(t *testing.T) {
	keys := attestKeys(t, t.TempDir())["ed25519"]
	passing := runnerFile(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	for _, tc := range []struct {
		name, kind string
		reports    []string
		want       string
	}{
		{"gate", "gate", []string{passing}, "not trusted (kind gate)"},
		{"a refused report beside a passing one", "after_turn", []string{passing, writeReport(t, t.TempDir(), "cut.xml", `<testsuite name="s"><testcase name="a"/>`)}, "incomplete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			run := parsedRun(t, dir, tc.kind, tc.reports...)
			att := filepath.Join(dir, "run.intoto.json")
			code, _, stderr := runCmd(t, "attest", run, "--key", keys[0], "-o", att)
			require.Equal(t, exitOK, code, stderr)
			pred := statementOf(t, att)["predicate"].(map[string]any)
			assert.Equal(t, "FAILED", pred["result"])
			assert.Equal(t, false, pred["testresultsRun"].(map[string]any)["counted"])
			code, out, _ := runCmd(t, "verify-attestation", "--key", keys[1], "--commit", attCommit, "--tree", attTree, att)
			assert.Equal(t, exitFailed, code)
			assert.Contains(t, out, "  - the run is not counted")
			assert.Contains(t, out, "  - result is FAILED, not PASSED: the run is not counted: ")
			assert.Contains(t, out, tc.want)
		})
	}
}

func TestVerifyAttestationBadInput(t *testing.T) {
	dir := t.TempDir()
	keys := attestKeys(t, dir)["ecdsa-p256"]
	run := parsedRun(t, dir, "after_turn", runnerFile(t, "maven/reports/TEST-calc.SeparatorTest.xml"))
	att := filepath.Join(dir, "run.intoto.json")
	code, _, stderr := runCmd(t, "attest", run, "--key", keys[0], "-o", att)
	require.Equal(t, exitOK, code, stderr)

	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(64<<20+1))
	require.NoError(t, f.Close())
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	der, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	require.NoError(t, err)
	rsaPub := writeReport(t, dir, "rsa.pub", string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"not JSON", []string{"--key", keys[1], "--commit", attCommit, "--tree", attTree, writeReport(t, dir, "x.json", "<xml/>")}, exitRejected, "not a DSSE envelope's JSON form"},
		{"a run, not an envelope", []string{"--key", keys[1], "--commit", attCommit, "--tree", attTree, run}, exitRejected, "not a DSSE envelope's JSON form"},
		{"huge", []string{"--key", keys[1], "--commit", attCommit, "--tree", attTree, huge}, exitRejected, "larger than 64 MiB"},
		{"RSA key", []string{"--key", rsaPub, "--commit", attCommit, "--tree", attTree, att}, exitRejected, "an RSA key"},
		{"private key", []string{"--key", keys[0], "--commit", attCommit, "--tree", attTree, att}, exitRejected, "verifying takes the public key"},
		{"not a key", []string{"--key", run, "--commit", attCommit, "--tree", attTree, att}, exitRejected, "not a PEM file"},
		{"no key", []string{"--commit", attCommit, "--tree", attTree, att}, exitUsage, "--key is required"},
		{"abbreviated commit", []string{"--key", keys[1], "--commit", attCommit[:10], "--tree", attTree, att}, exitUsage, "want a full commit id"},
		{"no attestation", []string{"--key", keys[1]}, exitUsage, "want ATTESTATION.json"},
		{"abbreviated tree", []string{"--key", keys[1], "--commit", attCommit, "--tree", attTree[:10], "--any-tree", att}, exitUsage, "want a working-tree digest (64 hex digits)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCmd(t, append([]string{"verify-attestation"}, tc.args...)...)
			assert.Equal(t, tc.code, code, "%s%s", out, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.NotContains(t, out, "verified")
		})
	}
}

// TestVerifyAttestationBinary runs the built binary, as a release gate
// would: its exit codes are the process's.
func TestVerifyAttestationBinary(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	keys := attestKeys(t, dir)["ed25519"]
	run := parsedRun(t, dir, "after_turn", runnerFile(t, "maven/reports/TEST-calc.SeparatorTest.xml"))
	att := filepath.Join(dir, "run.intoto.json")
	exitOf := func(args ...string) (int, string) {
		t.Helper()
		out, err := exec.Command(bin, args...).CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		}
		require.NoError(t, err, "%s", out)
		return 0, string(out)
	}
	code, out := exitOf("attest", run, "--key", keys[0], "-o", att)
	require.Equal(t, exitOK, code, out)
	code, out = exitOf("verify-attestation", "--key", keys[1], "--commit", attCommit, "--tree", attTree, att)
	require.Equal(t, exitOK, code, out)
	code, out = exitOf("verify-attestation", "--key", keys[1], "--commit", attOther, "--tree", attTree, att)
	assert.Equal(t, exitFailed, code, out)
	junit := filepath.Join(dir, "reports", "TEST-calc.SeparatorTest.xml")
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(junit, append(b, ' '), 0o644))
	code, out = exitOf("verify-attestation", "--key", keys[1], "--commit", attCommit, "--tree", attTree, att)
	assert.Equal(t, exitFailed, code, out)
	assert.Contains(t, out, "report reports/TEST-calc.SeparatorTest.xml")
}
