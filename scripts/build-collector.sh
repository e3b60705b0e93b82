#!/usr/bin/env bash
# Builds the custom collector otelcol-testresults from builder-config.yaml
# into _build/ with the OpenTelemetry Collector Builder (ocb), installing ocb
# first when the right version is not there. Safe to run again.
set -euo pipefail

OCB_VERSION=v0.165.0
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

gobin=$(go env GOBIN)
if [[ -z "$gobin" ]]; then
	gobin="$(go env GOPATH)/bin"
fi
ocb="$gobin/builder"

if ! "$ocb" version 2>&1 | grep -qF "$OCB_VERSION"; then
	echo "build-collector: installing ocb $OCB_VERSION"
	go install "go.opentelemetry.io/collector/cmd/builder@$OCB_VERSION"
fi

start=$(date +%s)
"$ocb" --config builder-config.yaml
end=$(date +%s)

bin="$root/_build/otelcol-testresults"
if [[ ! -x "$bin" ]]; then
	echo "build-collector: $bin was not built" >&2
	exit 1
fi
size=$(stat -c %s "$bin")
echo "build-collector: built _build/otelcol-testresults in $((end - start)) s, $((size / 1048576)) MiB"
