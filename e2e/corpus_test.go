package e2e

import (
	goflag "flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

var update = goflag.Bool("update", false, "rewrite the expected traces (expected.yaml) under testdata")

// TestGoldenCorpus: real runners' reports → report.ReadRun → translate →
// the expected traces (in process: no collector needed). Surefire with flakyFailure and rerunFailure,
// gotestsum with 27 failures and non-ASCII messages, nextest retries, and a
// coverage.py Cobertura file, all in one run.
func TestGoldenCorpus(t *testing.T) {
	corpus := testcorpus.Dir(t)
	paths := []string{
		filepath.Join(corpus, "surefire", "flaky-and-rerun.xml"),
		filepath.Join(corpus, "gotestsum", "hishtory-27-failures.xml"),
		filepath.Join(corpus, "nextest", "fixture-project-retries.xml"),
		filepath.Join(corpus, "cobertura", "coveragepy-gold-xml.xml"),
	}
	run, err := report.ReadRun(paths, report.WithRunOptions(testrun.WithRedactor(testrun.NewRedactor(nil))))
	require.NoError(t, err)
	exit := 1
	run.ID = "corpus-run"
	run.Kind = testrun.KindAfterTurn
	run.Command = "make test"
	run.Status = testrun.StatusFailure
	run.ExitCode = &exit
	run.Commit = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
	run.StartedAt = time.Date(2025, 11, 13, 9, 0, 0, 0, time.UTC)
	run.EndedAt = time.Date(2025, 11, 13, 9, 20, 0, 0, time.UTC)

	spans, err := translate.JobSpans(translate.Job{ID: "job-corpus"}, []*testrun.Run{run})
	require.NoError(t, err)
	res := resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceNameKey.String("testresults"))
	actual := translate.Traces(spans, res)
	path := filepath.Join("testdata", "corpus", "expected.yaml")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, golden.WriteTracesToFile(path, actual))
	}
	expected, err := golden.ReadTraces(path)
	require.NoError(t, err)
	require.NoError(t, ptracetest.CompareTraces(expected, actual))
}
