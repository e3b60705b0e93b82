package exporter_test

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
)

func ExampleExportRuns() {
	run := &testrun.Run{
		ID: "run-1", Kind: testrun.KindAfterTurn, Command: "pytest", Status: testrun.StatusSuccess, Complete: true,
		StartedAt: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC), EndedAt: time.Date(2025, 1, 2, 3, 5, 0, 0, time.UTC),
		Counts: &testrun.Counts{Total: 1, Passed: 1},
	}
	// OTLP/JSON into a buffer; FormatOTLP would send the same spans over OTLP/gRPC or OTLP/HTTP.
	var buf bytes.Buffer
	_, err := exporter.ExportRuns(context.Background(), []*testrun.Run{run}, exporter.Options{
		Format: exporter.FormatOTLPJSON,
		Output: &buf,
		JobID:  "job-42",
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		panic(err)
	}
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces(buf.Bytes())
	if err != nil {
		panic(err)
	}
	span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	fmt.Println(span.Name(), span.TraceID(), span.SpanID())
	fmt.Println(span.Events().At(0).Name(), span.EndTimestamp().AsTime())
	// Output:
	// job.verify 6608f279fcee73e720311c7486e2762c abe0cc937aebe3f9
	// test.run 2025-01-02 03:05:00 +0000 UTC
}
