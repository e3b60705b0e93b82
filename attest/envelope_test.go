package attest

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadEnvelopeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   io.Reader
		want string
	}{
		{"not JSON", strings.NewReader("<xml/>"), "not a DSSE envelope's JSON form"},
		{"empty", strings.NewReader(""), "not a DSSE envelope's JSON form"},
		{"an array", strings.NewReader("[]"), "not a DSSE envelope's JSON form"},
		{"unknown field", strings.NewReader(`{"payloadType":"x","payload":"eA==","signatures":[],"extra":1}`), "unknown field"},
		{"no payload", strings.NewReader(`{"payloadType":"x","signatures":[]}`), "payloadType or payload is missing"},
		{"data after", strings.NewReader(`{"payloadType":"x","payload":"eA==","signatures":[]} {}`), "data after"},
		{"huge", io.MultiReader(strings.NewReader(`{"payload":"`), bytes.NewReader(bytes.Repeat([]byte("A"), MaxEnvelopeBytes))), "larger than 64 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadEnvelope(tc.in)
			require.ErrorIs(t, err, ErrEnvelope)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestPairReports(t *testing.T) {
	entries := []reportEntry{{name: "results/a/junit.xml"}, {name: "results/b/junit.xml"}, {name: "../../target/TEST-x.xml"}}
	files, problems := pairReports(entries, []string{"/dl/b/junit.xml", "/dl/a/junit.xml", "/elsewhere/TEST-x.xml"})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"/dl/a/junit.xml", "/dl/b/junit.xml", "/elsewhere/TEST-x.xml"}, files)

	// Two files that match a name equally cannot be told apart.
	_, problems = pairReports(entries[:1], []string{"/x/junit.xml", "/y/junit.xml"})
	assert.Equal(t, []string{
		"report results/a/junit.xml: 2 of the reports given match its name equally: cannot tell which",
		"report /x/junit.xml was given but the attestation names no such report",
		"report /y/junit.xml was given but the attestation names no such report",
	}, problems)

	// One file cannot stand for two reports.
	files, problems = pairReports(entries[:2], []string{"junit.xml"})
	assert.Equal(t, []string{"report junit.xml stands for 2 attested reports (results/a/junit.xml, results/b/junit.xml): give each"}, problems)
	assert.Equal(t, []string{"", ""}, files)

	_, problems = pairReports(entries[:1], nil)
	assert.Equal(t, []string{"report results/a/junit.xml: not among the reports given"}, problems)
}

func TestCIRunURL(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	assert.Equal(t, "https://github.com/acme/app/actions/runs/42/attempts/2", CIRunURL(env(map[string]string{
		"GITHUB_SERVER_URL": "https://github.com/", "GITHUB_REPOSITORY": "acme/app", "GITHUB_RUN_ID": "42", "GITHUB_RUN_ATTEMPT": "2"})))
	assert.Equal(t, "https://gitlab.com/acme/app/-/jobs/7", CIRunURL(env(map[string]string{"CI_JOB_URL": "https://gitlab.com/acme/app/-/jobs/7"})))
	assert.Equal(t, "", CIRunURL(env(map[string]string{"GITHUB_REPOSITORY": "acme/app"})), "never guessed")
}
