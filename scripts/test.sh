#!/usr/bin/env bash
# The project's test command (the README's): formatting, vet and the
# linters, every Go test with the race detector, then the collector end-to-end test, which
# builds otelcol-testresults with ocb and runs it on 127.0.0.1.
# Needs Go and the Go module proxy, and (as root, from Debian's packages)
# PostgreSQL for the shared-store tests, which it starts on 127.0.0.1 and
# stops again. Safe to run again.
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

# The linters (.golangci.yml; golangci-lint is pinned as a Go tool in go.mod).
go tool golangci-lint run ./...

# The real runners the run wrapper's end-to-end tests wrap: pytest and
# pytest-rerunfailures (Debian), gotestsum, jest with jest-junit (npm).
bash scripts/install-runners.sh
# Debian's chromium, for the test that loads the job page in a browser.
bash scripts/serve-chromium.sh

# A throwaway PostgreSQL on 127.0.0.1 for the store tests (the same suite
# runs against SQLite and PostgreSQL).
mkdir -p _build
export TESTRESULTS_PG_STATE="$root/_build/postgres.state"
eval "$(bash scripts/postgres.sh start)"
trap 'bash scripts/postgres.sh stop' EXIT

go test -race -count=1 -timeout 30m ./...

# The corpus of real reports is evidence: say how much of it was read.
go test -count=1 -run '^TestCorpus$' -v ./report/ | grep -E 'corpus reports parsed|SKIP|FAIL' || true

bash scripts/e2e-collector.sh
echo "test: all passed in $(($(date +%s) - start)) s"
