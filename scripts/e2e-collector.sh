#!/usr/bin/env bash
# End-to-end tests of the collector: builds otelcol-testresults once (see
# build-collector.sh) and the testresults CLI, then runs the e2e package
# against them: the collector on 127.0.0.1, runs sent by the CLI and by the
# load generator (e2e/loadgen), output read from the file exporter. Safe to
# run again.
#
# The load test runs its short version (2,000 spans/s for 10 s, against the
# sample configuration and the same pipeline without the processor) unless
# TESTRESULTS_LOAD=long (10,000 spans/s for 60 s) or TESTRESULTS_LOAD_RATE /
# TESTRESULTS_LOAD_SECONDS say otherwise.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

start=$(date +%s)
bash scripts/build-collector.sh
go build -o _build/testresults ./cmd/testresults
built=$(date +%s)

TESTRESULTS_E2E=1 TESTRESULTS_COLLECTOR="$root/_build/otelcol-testresults" \
	TESTRESULTS_CLI="$root/_build/testresults" \
	go test -count=1 -v -timeout 15m ./e2e/...
end=$(date +%s)

echo "e2e-collector: build $((built - start)) s, tests $((end - built)) s, total $((end - start)) s"
