package attest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	testresult "github.com/in-toto/attestation/go/predicates/test_result/v0"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerificationReport: the JSON form keeps its keys, null for a result
// that is not known and [] for no problem.
func TestVerificationReport(t *testing.T) {
	b, err := json.Marshal((&Verification{Problems: []string{"bad <sig>"}}).Report("abc"))
	require.NoError(t, err)
	assert.Equal(t, `{"verified":false,"commit":"abc","result":null,"reports_rehashed":0,"problems":["bad \u003csig\u003e"]}`, string(b))
	v := &Verification{Predicate: &testresult.TestResult{Result: "PASSED"}, Reports: 2}
	b, err = json.Marshal(v.Report("abc"))
	require.NoError(t, err)
	assert.Equal(t, `{"verified":true,"commit":"abc","result":"PASSED","reports_rehashed":2,"problems":[]}`, string(b))
}

// TestReadEnvelopeFile: a file gives its folder, stdin the current one;
// an envelope that does not read names the path.
func TestReadEnvelopeFile(t *testing.T) {
	dir := t.TempDir()
	good := `{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"keyid":"","sig":"c2ln"}]}`
	p := filepath.Join(dir, "att.json")
	require.NoError(t, os.WriteFile(p, []byte(good), 0o644))
	e, got, err := ReadEnvelopeFile(p, nil)
	require.NoError(t, err)
	assert.Equal(t, dir, got)
	assert.Equal(t, "application/vnd.in-toto+json", e.PayloadType)
	_, got, err = ReadEnvelopeFile("-", strings.NewReader(good))
	require.NoError(t, err)
	assert.Equal(t, ".", got)
	_, _, err = ReadEnvelopeFile("-", strings.NewReader("[]"))
	assert.True(t, errors.Is(err, ErrEnvelope), "%v", err)
	assert.ErrorContains(t, err, "-: ")
	_, _, err = ReadEnvelopeFile(filepath.Join(dir, "none.json"), nil)
	assert.True(t, os.IsNotExist(err), "%v", err)
}
