#!/usr/bin/env bash
# Shows a failing run in Jaeger v2, the way a person would read it.
#
#   scripts/jaeger-demo.sh
#
# 1. builds testresults and Jaeger v2 (v1.76.0, in a throwaway module under
#    _build/jaeger-build; about 6 minutes the first time, cached after);
# 2. starts Jaeger with in-memory storage, every port on 127.0.0.1 only;
# 3. parses the pytest reports of testdata/runners/pytest into a run and
#    exports it over OTLP/gRPC to Jaeger (job span job.verify);
# 4. asserts through Jaeger's query API (/api/traces?service=...) that the
#    trace is there, that its span has the error status and its description,
#    the counts and hangar.test.failed_ids, and that its events come in order
#    (test.run first, then every failing test, each at its own time);
# 5. with a built Jaeger UI (JAEGER_UI_ASSETS, or JAEGER_UI_SRC to build it),
#    takes a screenshot of the trace page with its span opened, with headless
#    Chromium (SCREENSHOT, default docs/jaeger-failing-run.png).
#
# Not part of CI (too slow). Exit status: 0 when every assertion holds.
#
# Environment:
#   JAEGER_OTLP_GRPC   OTLP/gRPC port   (default 4317)
#   JAEGER_OTLP_HTTP   OTLP/HTTP port   (default 4318)
#   JAEGER_QUERY_HTTP  query API and UI (default 16686)
#   JAEGER_QUERY_GRPC  query gRPC       (default 16685)
#   JAEGER_UI_ASSETS   a built jaeger-ui (its folder with index.html)
#   JAEGER_UI_SRC      a jaeger-ui v1.76.0 source tree: built with npm into
#                      _build/jaeger-ui once (about 5 minutes), then used
#   SCREENSHOT         where the screenshot goes
#   KEEP=1             leave Jaeger running at the end (its pid is printed)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=$root/_build
mkdir -p "$build"

grpc_port=${JAEGER_OTLP_GRPC:-4317}
http_port=${JAEGER_OTLP_HTTP:-4318}
query_port=${JAEGER_QUERY_HTTP:-16686}
query_grpc_port=${JAEGER_QUERY_GRPC:-16685}
service=testresults-demo
screenshot=${SCREENSHOT:-$root/docs/jaeger-failing-run.png}

log() { printf 'jaeger-demo: %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

for p in "$grpc_port" "$http_port" "$query_port" "$query_grpc_port"; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		fail "port $p on 127.0.0.1 is taken; choose others with JAEGER_OTLP_GRPC, JAEGER_OTLP_HTTP, JAEGER_QUERY_HTTP, JAEGER_QUERY_GRPC"
	fi
done

# 1. Binaries.
log "building testresults"
go build -o "$build/testresults" ./cmd/testresults
jaeger=$build/jaeger
if [[ ! -x $jaeger ]]; then
	log "building Jaeger v1.76.0 (first time: several minutes)"
	mod=$build/jaeger-build
	rm -rf "$mod"
	mkdir -p "$mod"
	(
		cd "$mod"
		go mod init jaegerbuild >/dev/null 2>&1
		go get -tool github.com/jaegertracing/jaeger/cmd/jaeger@v1.76.0
		go build -o "$jaeger.tmp" github.com/jaegertracing/jaeger/cmd/jaeger
	)
	mv "$jaeger.tmp" "$jaeger"
fi

ui_assets=${JAEGER_UI_ASSETS:-}
if [[ -z $ui_assets && -n ${JAEGER_UI_SRC:-} ]]; then
	ui_assets=$build/jaeger-ui
	if [[ ! -f $ui_assets/index.html ]]; then
		log "building jaeger-ui from $JAEGER_UI_SRC"
		(
			cd "$JAEGER_UI_SRC"
			npm ci --no-audit --no-fund --engine-strict=false
			cd packages/jaeger-ui
			npx vite build
		)
		rm -rf "$ui_assets"
		cp -r "$JAEGER_UI_SRC/packages/jaeger-ui/build" "$ui_assets"
	fi
fi

# 2. Jaeger on 127.0.0.1 only, in-memory, no metrics port of its own.
work=$(mktemp -d)
jaeger_pid=
cleanup() {
	if [[ -n $jaeger_pid && ${KEEP:-} != 1 ]]; then
		kill "$jaeger_pid" 2>/dev/null || true
		wait "$jaeger_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

ui_block=
if [[ -n $ui_assets ]]; then
	ui_block=$(printf '    ui:\n      assets_path: %s' "$ui_assets")
fi
cat >"$work/jaeger.yaml" <<EOF
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: []
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 1000
  jaeger_query:
    storage:
      traces: memstore
${ui_block}
    http:
      endpoint: 127.0.0.1:$query_port
    grpc:
      endpoint: 127.0.0.1:$query_grpc_port
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:$grpc_port
      http:
        endpoint: 127.0.0.1:$http_port
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
EOF
log "starting Jaeger (query on 127.0.0.1:$query_port)"
"$jaeger" --config "$work/jaeger.yaml" >"$work/jaeger.log" 2>&1 &
jaeger_pid=$!
up=
for _ in $(seq 1 100); do
	if curl -fsS "http://127.0.0.1:$query_port/api/services" >/dev/null 2>&1; then
		up=1
		break
	fi
	kill -0 "$jaeger_pid" 2>/dev/null || break
	sleep 0.2
done
[[ -n $up ]] || { cat "$work/jaeger.log" >&2; fail "Jaeger did not start"; }

# 3. A real run: pytest's own report of testdata/runners/pytest, with its
# coverage, exported as job.verify of job demo-job.
log "exporting a failing pytest run"
"$build/testresults" parse \
	--kind after_turn --command "python3 -m pytest -q" --exit-code 1 \
	--started-at 2025-11-20T10:00:00Z --ended-at 2025-11-20T10:00:04.2Z \
	--export --otlp-endpoint "127.0.0.1:$grpc_port" --otlp-insecure \
	--job demo-job --service-name "$service" \
	testdata/runners/pytest/reports/pytest-xunit2.xml testdata/runners/pytest/reports/coverage.xml \
	>"$work/run.json"

# 4. What Jaeger gives back.
# The run's times are fixed (so a replay is identical) and in the past: the
# search window is given around them, in microseconds.
window="start=$(date -u -d 2025-11-20T09:00:00Z +%s)000000&end=$(date -u -d 2025-11-20T11:00:00Z +%s)000000"
traces=$work/traces.json
for _ in $(seq 1 50); do
	curl -fsS "http://127.0.0.1:$query_port/api/traces?service=$service&limit=20&$window" >"$traces" || true
	[[ $(jq '.data | length' "$traces" 2>/dev/null || echo 0) -ge 1 ]] && break
	sleep 0.2
done
python3 - "$work/run.json" "$traces" <<'EOF'
import json, sys

run = json.load(open(sys.argv[1]))
data = json.load(open(sys.argv[2]))["data"]
assert len(data) == 1, f"want one trace, got {len(data)}"
trace = data[0]
spans = [s for s in trace["spans"] if s["operationName"] == "job.verify"]
assert len(spans) == 1, "want one job.verify span"
span = spans[0]
tags = {t["key"]: t["value"] for t in span["tags"]}
c = run["counts"]
assert tags.get("error") is True, f"no error tag: {tags}"
assert tags.get("otel.status_code") == "ERROR", tags.get("otel.status_code")
parts = []
if c["failed"]:
    parts.append(f'{c["failed"]} failed')
if c["errors"]:
    parts.append(f'{c["errors"]} error' + ("s" if c["errors"] > 1 else ""))
want_desc = ", ".join(parts) + f' of {c["total"]}'
assert tags.get("otel.status_description") == want_desc, (tags.get("otel.status_description"), want_desc)
for k in ("total", "passed", "failed", "errors", "skipped", "flaky"):
    assert tags.get("hangar.test." + k) == c[k], (k, tags.get("hangar.test." + k), c[k])
assert "hangar.test.run.trusted" not in tags, "trust on a span is the processor's to write"

failing = [f["id"] for f in run["failures"]]
failed_ids = json.loads(tags["hangar.test.failed_ids"])
assert failed_ids == failing[:10], (failed_ids, failing)

logs = sorted(span["logs"], key=lambda l: l["timestamp"])
times = [l["timestamp"] for l in logs]
assert len(set(times)) == len(times), "every event at its own time"
fields = [{f["key"]: f["value"] for f in l["fields"]} for l in logs]
assert fields[0]["event"] == "test.run", fields[0]
names = [f["test.case.name"] for f in fields[1:] if f.get("test.case.result.status") == "fail"]
assert names == failing, (names, failing)
print(f"trace {trace['traceID']}: span job.verify status ERROR \"{want_desc}\", "
      f"{len(logs)} events in order, failing tests: {', '.join(failing)}")
print(trace["traceID"], file=open(sys.argv[2] + ".id", "w"))
EOF
trace_id=$(tr -d '\n' <"$traces.id")

# 5. The screenshot, when there is a real UI to take it of.
if [[ -z $ui_assets ]]; then
	log "no JAEGER_UI_ASSETS or JAEGER_UI_SRC: the query API checks passed; no screenshot (Jaeger built with go build serves a placeholder UI)"
	[[ ${KEEP:-} == 1 ]] && log "Jaeger left running: pid $jaeger_pid"
	exit 0
fi
chromium=$(command -v chromium || command -v chromium-browser || true)
[[ -n $chromium ]] || fail "chromium not found (Debian: apt-get install -y chromium)"
shot=$build/jaeger-shot
if [[ ! -d $shot/node_modules/puppeteer-core ]]; then
	log "installing puppeteer-core (drives the system Chromium; downloads no browser)"
	mkdir -p "$shot"
	(cd "$shot" && npm init -y >/dev/null && npm install --no-audit --no-fund puppeteer-core@24 >/dev/null)
fi
mkdir -p "$(dirname "$screenshot")"
cat >"$shot/shot.cjs" <<'EOF'
// Opens the trace page, opens the job.verify span, its tags and its events,
// and saves a screenshot.
const puppeteer = require('puppeteer-core');
const [chromium, url, out, profile] = process.argv.slice(2);
(async () => {
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--window-size=1400,1400'],
    defaultViewport: { width: 1400, height: 1400 },
  });
  try {
    const page = await browser.newPage();
    await page.goto(url, { waitUntil: 'networkidle0', timeout: 30000 });
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    // The span's row opens its details; its events (Logs) are open already.
    await (await page.waitForSelector('.span-name', { timeout: 15000 })).click();
    await sleep(500);
    const tags = await page.waitForSelector('::-p-text(Tags:)', { timeout: 15000 });
    await tags.click();
    await sleep(300);
    // Open the first failure's event: its fields, test.case.name among them.
    const rows = await page.$$('.AccordianLogs--content .AccordianKeyValues--header');
    if (rows.length < 2) throw new Error(`want the test.run event and a failure, got ${rows.length} events`);
    await rows[1].click();
    await sleep(500);
    await page.screenshot({ path: out });
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
EOF
profile=$(mktemp -d)
node "$shot/shot.cjs" "$chromium" "http://127.0.0.1:$query_port/trace/$trace_id" "$screenshot" "$profile"
rm -rf "$profile"
log "screenshot: $screenshot ($(wc -c <"$screenshot") bytes)"
[[ ${KEEP:-} == 1 ]] && log "Jaeger left running: pid $jaeger_pid"
exit 0
