package exporter_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/exporter"
)

// TestFitsVerdict: the session, provisioning and base-run settings do not
// fit a verdict's export; the output, OTLP and placement settings do.
func TestFitsVerdict(t *testing.T) {
	for _, f := range []string{"base", "session", "turn", "base-run"} {
		assert.False(t, exporter.FitsVerdict(f), f)
	}
	for _, f := range []string{"format", "output", "otlp-endpoint", "job", "parent", "events", "service-name"} {
		assert.True(t, exporter.FitsVerdict(f), f)
	}
}

// TestSettingsVerdictOptions: OTLP/JSON to stdout is refused (stdout
// carries the verdict), to a file it is the output file; sending needs no
// file; a setting Options refuses is refused here too.
func TestSettingsVerdictOptions(t *testing.T) {
	env := func(string) string { return "" }
	environ := func() []string { return nil }

	s := baseSettings()
	s.Format = "otlp-json"
	_, _, err := s.VerdictOptions(env, environ)
	require.ErrorIs(t, err, exporter.ErrSettings)
	assert.EqualError(t, err, "--format otlp-json needs -o FILE here: stdout carries the verdict")

	s.Output, s.Given = "verdict.json", given("format", "output")
	o, outFile, err := s.VerdictOptions(env, environ)
	require.NoError(t, err)
	assert.Equal(t, exporter.FormatOTLPJSON, o.Format)
	assert.Equal(t, "verdict.json", outFile)

	o, outFile, err = baseSettings().VerdictOptions(env, environ)
	require.NoError(t, err)
	assert.Equal(t, exporter.FormatOTLP, o.Format)
	assert.Empty(t, outFile)

	s = baseSettings()
	s.Format = "zipkin"
	_, _, err = s.VerdictOptions(env, environ)
	assert.True(t, errors.Is(err, exporter.ErrSettings), "%v", err)
}
