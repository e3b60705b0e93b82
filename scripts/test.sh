#!/usr/bin/env bash
# The project's test command (the README's): formatting and vet, every Go
# test with the race detector, then the collector end-to-end test, which
# builds otelcol-testresults with ocb and runs it on 127.0.0.1.
# Needs only Go and the Go module proxy; safe to run again.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

start=$(date +%s)
go mod download

unformatted=$(gofmt -l $(find . -name '*.go' -not -path './_build/*' -not -path '*/node_modules/*'))
if [[ -n "$unformatted" ]]; then
	echo "test: gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi

go vet ./...
go test -race -count=1 -timeout 30m ./...

bash scripts/e2e-collector.sh
echo "test: all passed in $(($(date +%s) - start)) s"
