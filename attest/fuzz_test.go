package attest

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// FuzzVerify feeds arbitrary bytes to ReadEnvelope and Verify. Invariants:
// no panic, and nothing but the one validly signed seed verifies (the
// fuzzer cannot sign with the key).
func FuzzVerify(f *testing.F) {
	keys := ed25519Pair(f)
	sep := runnerReport(f, "maven/reports/TEST-calc.SeparatorTest.xml")
	run := runOf(f, testrun.KindAfterTurn, sep)
	st, err := NewStatement(run)
	require.NoError(f, err)
	signer, err := LoadSigner(keys.private)
	require.NoError(f, err)
	valid, err := Sign(context.Background(), st, signer)
	require.NoError(f, err)
	verifier, err := LoadVerifier(keys.public)
	require.NoError(f, err)
	f.Add(valid)
	f.Add([]byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"keyid":"","sig":"AAAA"}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := ReadEnvelope(bytes.NewReader(data))
		if err != nil {
			return
		}
		v := Verify(context.Background(), env, verifier, Want{Tree: treeA, Commit: commitA, Reports: []string{sep}})
		if v.OK() && !bytes.Equal(bytes.TrimSpace(data), bytes.TrimSpace(valid)) {
			t.Fatalf("verified an envelope the key did not sign: %q", data)
		}
	})
}
