#!/usr/bin/env bash
# The store under many writers: N concurrent `testresults flaky record`
# processes (default 200) against one PostgreSQL whose max_connections is
# 100 (the server's default), directly and through PgBouncer in
# transaction pooling mode, each process opening one connection
# (--store-max-conns 1). Pairs of runs flip a test (it passes in one run
# and fails in the other, on the same tree), so the flaky list must end
# with exactly N/2 entries: 0 errors and 0 lost flips, counted against what
# was sent. Prints the latency of the processes (p50, p99, max) and the
# throughput for each way in; docs/scale.md quotes them.
#
#   scripts/scale-test.sh            # N=200
#   SCALE_WRITERS=50 scripts/scale-test.sh
#   TESTRESULTS_CLI=path/to/testresults scripts/scale-test.sh   # no build
#
# Starts its own PostgreSQL (scripts/postgres.sh) and PgBouncer
# (scripts/pgbouncer.sh), installing them from Debian when missing (as
# root), and stops both at the end. The collector's scale-out test is
# TestScaleOut in e2e (scripts/e2e-collector.sh runs it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
writers=${SCALE_WRITERS:-200}
if [ $((writers % 2)) != 0 ] || [ "$writers" -lt 2 ]; then
	echo "scale-test: SCALE_WRITERS must be even and at least 2" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/testresults-scale.XXXXXX")
export TESTRESULTS_PG_STATE=$work/pg.state
export TESTRESULTS_PGBOUNCER_STATE=$work/pgbouncer.state
cleanup() {
	bash scripts/pgbouncer.sh stop || true
	bash scripts/postgres.sh stop || true
	rm -rf "$work"
}
trap cleanup EXIT

eval "$(bash scripts/postgres.sh start)"
eval "$(bash scripts/pgbouncer.sh start "$TESTRESULTS_POSTGRES_URL")"
direct=$TESTRESULTS_POSTGRES_URL
pooled=$TESTRESULTS_PGBOUNCER_URL
echo "scale-test: PostgreSQL max_connections=$(psql "$direct" -Atc 'SHOW max_connections'), PgBouncer $(pgbouncer --version 2>/dev/null | head -1 || /usr/sbin/pgbouncer --version | head -1) pool_mode=transaction"

cli=${TESTRESULTS_CLI:-}
if [ -z "$cli" ]; then
	cli=$work/testresults
	go build -o "$cli" ./cmd/testresults
fi

# Run k is on tree k/2; its test flips with run k^1's: passed in the even
# run, failed in the odd one.
mkdir "$work/runs"
for ((k = 0; k < writers; k++)); do
	pair=$((k / 2))
	tree=$(printf '%064x' $((pair + 1)))
	if ((k % 2 == 0)); then
		outcome=passed status=success exit=0 passed=2 failed=0 failures='[]'
	else
		outcome=failed status=failure exit=1 passed=1 failed=1
		failures="[{\"id\": \"pkg.TestFlip$pair\", \"outcome\": \"failed\", \"message\": \"flipped\", \"flaky\": false}]"
	fi
	cat >"$work/runs/run-$k.json" <<JSON
{
  "id": "scale-$k",
  "kind": "base",
  "grade": null,
  "command": "go test ./...",
  "status": "$status",
  "exit_code": $exit,
  "commit": "$(printf '%040x' $((pair + 1)))",
  "tree": "$tree",
  "agent_run_id": null,
  "started_at": "2026-01-10T10:00:00Z",
  "ended_at": "2026-01-10T10:00:05Z",
  "counts": {"total": 2, "passed": $passed, "failed": $failed, "errors": 0, "skipped": 0, "flaky": 0},
  "complete": true,
  "incomplete_reasons": [],
  "trusted": true,
  "counted": true,
  "failures": $failures,
  "cases": {"pkg.TestFlip$pair": "$outcome", "pkg.TestStable": "passed"},
  "flaky": [],
  "coverage": null,
  "reports": []
}
JSON
done

# writer K URL OUT: one process, its exit code and wall time in ms.
writer() {
	local k=$1 url=$2 out=$3 t0 t1 rc=0
	t0=$(date +%s%N)
	"$cli" flaky record --store "$url" --store-max-conns 1 --repo "scale/$4" --env ci \
		"$work/runs/run-$k.json" >"$out.stdout" 2>"$out.stderr" || rc=$?
	t1=$(date +%s%N)
	echo "$rc $(((t1 - t0) / 1000000))" >"$out"
}

# pass NAME URL: N writers at once into repository scale/NAME.
pass() {
	local name=$1 url=$2 k t0 t1 errors entries
	mkdir "$work/$name"
	t0=$(date +%s%N)
	for ((k = 0; k < writers; k++)); do
		writer "$k" "$url" "$work/$name/$k.rc" "$name" &
	done
	wait
	t1=$(date +%s%N)
	errors=$(cat "$work/$name"/*.rc | awk '$1 != 0' | wc -l)
	entries=$("$cli" flaky list --store "$url" --store-max-conns 1 --repo "scale/$name" --env ci --json |
		grep -o '"test_id": *"[^"]*"' | sort -u | wc -l)
	cat "$work/$name"/*.rc | awk '{print $2}' | sort -n >"$work/$name.ms"
	local n p50 p99 max
	n=$(wc -l <"$work/$name.ms")
	p50=$(sed -n "$(((n * 50 + 99) / 100))p" "$work/$name.ms")
	p99=$(sed -n "$(((n * 99 + 99) / 100))p" "$work/$name.ms")
	max=$(tail -n 1 "$work/$name.ms")
	echo "scale-test: $name: $writers writers, $errors errors, flaky entries $entries of $((writers / 2)) flips sent," \
		"latency p50 ${p50} ms p99 ${p99} ms max ${max} ms, $((writers * 1000000000 / (t1 - t0))) records/s over $(((t1 - t0) / 1000000)) ms"
	if [ "$errors" != 0 ]; then
		for f in "$work/$name"/*.stderr; do
			if [ -s "$f" ]; then
				echo "scale-test: $name: first error: $(head -c 300 "$f")" >&2
				break
			fi
		done
	fi
	[ "$errors" = 0 ] && [ "$entries" = $((writers / 2)) ]
}

status=0
pass pgbouncer "$pooled" || status=1
pass direct "$direct" || status=1
bytes=$(psql "$direct" -Atc "SELECT pg_database_size(current_database())")
echo "scale-test: database size after $((2 * writers)) recorded runs: $bytes bytes"
exit $status
