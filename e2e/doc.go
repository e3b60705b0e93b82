// Package e2e holds the end-to-end tests of the collector: otelcol-testresults
// built from builder-config.yaml runs on 127.0.0.1, the testresults CLI and a
// raw OTLP client send runs to it, and the tests read what its file exporter
// wrote. They run only when TESTRESULTS_E2E=1 or TESTRESULTS_COLLECTOR names
// a built collector (scripts/e2e-collector.sh sets both). The tests that join
// packages in process (reports through translate to the expected traces,
// exported spans through the processor) need no collector and always run.
package e2e
