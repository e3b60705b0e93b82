#!/usr/bin/env bash
# End-to-end test of the collector: builds otelcol-testresults (see
# build-collector.sh), then runs the e2e package against it: the collector on
# 127.0.0.1, runs sent by the testresults CLI, output read from the file
# exporter. Safe to run again.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

start=$(date +%s)
bash scripts/build-collector.sh
built=$(date +%s)

TESTRESULTS_E2E=1 TESTRESULTS_COLLECTOR="$root/_build/otelcol-testresults" \
	go test -count=1 -v -timeout 10m ./e2e/...
end=$(date +%s)

echo "e2e-collector: build $((built - start)) s, tests $((end - built)) s, total $((end - start)) s"
