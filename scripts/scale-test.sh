#!/usr/bin/env bash
# The store under many writers: N concurrent `testresults flaky record`
# processes (default 200) against one PostgreSQL whose max_connections is
# 100 (the server's default), directly and through PgBouncer in
# transaction pooling mode, each process opening one connection
# (--store-max-conns 1). Pairs of runs flip a test (it passes in one run
# and fails in the other, on the same tree), so the flaky list must end
# with exactly N/2 entries: 0 errors and 0 lost flips, counted against what
# was sent (the promise holds through PgBouncer; the direct pass shows what
# happens without a pooler). Each process also stores its run whole (--record, what
# testresults serve reads), with SCALE_CASES passing cases (default 200). Prints the latency of the processes (p50, p99, max) and the
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
cases=${SCALE_CASES:-200} # passing cases in each run besides the flipping one
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

# runs NAME: the runs of one pass, in $work/NAME-runs. Run k is on tree
# k/2; its test flips with run k^1's: passed in the even run, failed in the
# odd one. Each run also passes $cases other cases. Run ids carry NAME:
# a stored run's id is unique in the whole store.
more=
for ((i = 0; i < cases; i++)); do
	more+=", \"pkg.TestCase$i\": \"passed\""
done
runs() {
	local name=$1 k pair tree outcome status exit passed failed failures
	mkdir "$work/$name-runs"
	for ((k = 0; k < writers; k++)); do
		pair=$((k / 2))
		tree=$(printf '%064x' $((pair + 1)))
		failures='[]'
		if ((k % 2 == 0)); then
			outcome=passed status=success exit=0 passed=$((cases + 1)) failed=0
		else
			outcome=failed status=failure exit=1 passed=$cases failed=1
			failures="[{\"id\": \"pkg.TestFlip$pair\", \"outcome\": \"failed\", \"message\": \"flipped\", \"flaky\": false}]"
		fi
		cat >"$work/$name-runs/run-$k.json" <<JSON
{
  "id": "scale-$name-$k",
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
  "counts": {"total": $((cases + 1)), "passed": $passed, "failed": $failed, "errors": 0, "skipped": 0, "flaky": 0},
  "complete": true,
  "incomplete_reasons": [],
  "trusted": true,
  "counted": true,
  "failures": $failures,
  "cases": {"pkg.TestFlip$pair": "$outcome"$more},
  "flaky": [],
  "coverage": null,
  "reports": []
}
JSON
	done
}

# writer K URL OUT: one process, its exit code and wall time in ms.
writer() {
	local k=$1 url=$2 out=$3 t0 t1 rc=0
	t0=$(date +%s%N)
	"$cli" flaky record --store "$url" --store-max-conns 1 --repo "scale/$4" --env ci --record --job-id "$4-$k" \
		"$work/$4-runs/run-$k.json" >"$out.stdout" 2>"$out.stderr" || rc=$?
	t1=$(date +%s%N)
	echo "$rc $(((t1 - t0) / 1000000))" >"$out"
}

# pass NAME URL: N writers at once into repository scale/NAME.
pass() {
	local name=$1 url=$2 k t0 t1 errors entries
	runs "$name"
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

size() { psql "$direct" -Atc "SELECT pg_database_size(current_database())"; }
status=0
pass pgbouncer "$pooled" || status=1
before=$(size)
# Without a pooler each writer holds a server connection while it waits for
# the repository's lock: informational, not a promise (see docs/scale.md).
pass direct "$direct" || echo "scale-test: direct: not every writer got through without a pooler (informational)"
after=$(size)
stored=$(psql "$direct" -Atc "SELECT count(*) FROM runs")
# What retention keeps longer (the run without its cases: 14 days) and what
# it drops sooner (the per-case map: 3 days, 14 for base runs).
columns=$(psql "$direct" -Atc "SELECT round(avg(pg_column_size(run_json))) || ' bytes of run, ' ||
	round(avg(pg_column_size(cases_json))) || ' of per-case map (compressed, on average)' FROM runs")
echo "scale-test: $stored runs stored (flaky record --record); the database grew by $((after - before)) bytes for $writers runs of $((cases + 1)) cases: $(((after - before) / writers)) bytes per run, indexes and tags included; $columns"
# Two serve replicas on the one store, through PgBouncer: neither has state
# of its own, so both answer the same bytes for the same job.
serve_pids=() ports=()
# replica: starts one serve on a free port and waits (bounded) until it
# answers; its pid and port are appended to serve_pids and ports.
replica() {
	local port
	for _ in $(seq 1 200); do
		port=$((20000 + RANDOM % 40000))
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
	done
	"$cli" serve --listen "127.0.0.1:$port" --store "$pooled" --store-max-conns 4 >"$work/serve-$port.log" 2>&1 &
	serve_pids+=($!)
	ports+=("$port")
	for _ in $(seq 1 600); do
		if curl -fsS -o /dev/null "http://127.0.0.1:$port/api/jobs/pgbouncer-1/tests" 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	echo "scale-test: serve on $port did not answer within 60 s: $(tail -c 300 "$work/serve-$port.log")" >&2
	return 1
}
stop_replicas() {
	if [ "${#serve_pids[@]}" -gt 0 ]; then
		kill "${serve_pids[@]}" 2>/dev/null || true
		wait "${serve_pids[@]}" 2>/dev/null || true
	fi
	serve_pids=()
}
trap 'stop_replicas; cleanup' EXIT
replica
replica
a=${ports[0]} b=${ports[1]}
same=0
for job in pgbouncer-0 pgbouncer-1 pgbouncer-$((writers - 1)); do
	curl -fsS "http://127.0.0.1:$a/api/jobs/$job/tests" >"$work/a.json"
	curl -fsS "http://127.0.0.1:$b/api/jobs/$job/tests" >"$work/b.json"
	if cmp -s "$work/a.json" "$work/b.json" && [ -s "$work/a.json" ]; then
		same=$((same + 1))
	fi
done
stop_replicas
echo "scale-test: two serve replicas on one store answered $same of 3 jobs with the same bytes"
[ "$same" = 3 ] || status=1

echo "scale-test: bytes by table (indexes and TOAST included), for $stored stored runs:" \
	"$(psql "$direct" -Atc "SELECT string_agg(relname || ' ' || pg_total_relation_size(oid), ', ' ORDER BY pg_total_relation_size(oid) DESC)
		FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace")"
exit $status
