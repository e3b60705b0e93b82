package attest

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

const (
	commitA = "3f9d2c1b0a8e7d6c5b4a39281706f5e4d3c2b1a0"
	commitB = "0123456789abcdef0123456789abcdef01234567"
	// treeA is the working-tree digest of the runs runOf makes.
	treeA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

// keyPair is a private key and its public key, PEM-encoded as openssl
// genpkey and openssl pkey -pubout write them.
type keyPair struct{ private, public []byte }

func pemBlock(t testing.TB, typ string, der []byte, err error) []byte {
	t.Helper()
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func ed25519Pair(t testing.TB) keyPair {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	p8, err := x509.MarshalPKCS8PrivateKey(priv)
	pk, err2 := x509.MarshalPKIXPublicKey(pub)
	return keyPair{pemBlock(t, "PRIVATE KEY", p8, err), pemBlock(t, "PUBLIC KEY", pk, err2)}
}

func p256Pair(t testing.TB) keyPair {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	p8, err := x509.MarshalPKCS8PrivateKey(k)
	pk, err2 := x509.MarshalPKIXPublicKey(&k.PublicKey)
	return keyPair{pemBlock(t, "PRIVATE KEY", p8, err), pemBlock(t, "PUBLIC KEY", pk, err2)}
}

// runOf reads real reports into a run that is counted unless its kind or
// its reports say otherwise.
func runOf(t testing.TB, kind testrun.Kind, paths ...string) *testrun.Run {
	t.Helper()
	run, err := report.ReadRun(paths)
	require.NoError(t, err)
	exit := 0
	run.ID, run.Kind, run.Commit, run.Tree, run.Command = "run-1", kind, commitA, treeA, "mvn test"
	run.Status, run.ExitCode = testrun.StatusSuccess, &exit
	return run
}

// runnerReport is a report a real runner wrote, in testdata/runners.
func runnerReport(t testing.TB, rel string) string {
	t.Helper()
	return filepath.Join(testcorpus.Root(t), "testdata", "runners", filepath.FromSlash(rel))
}
