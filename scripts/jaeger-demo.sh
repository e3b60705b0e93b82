#!/usr/bin/env bash
# Shows a failing run in Jaeger v2, the way a person would read it.
#
#   scripts/jaeger-demo.sh
#
# 1. builds testresults and Jaeger v2 (v1.76.0, in a throwaway module under
#    _build/jaeger-build; a few minutes the first time, cached after);
# 2. starts Jaeger with in-memory storage, every port on 127.0.0.1 only;
# 3. parses the pytest reports of testdata/runners/pytest into a run and
#    exports it over OTLP/gRPC to Jaeger (job span job.verify) with
#    --case-spans failed: a child span per failing or flaky test;
# 4. asserts through Jaeger's query API (/api/traces?service=...) that the
#    trace is there, that job.verify has the error status and its
#    description, the counts and hangar.test.failed_ids, and that its events
#    come in order (test.run first, then every failing test, each at its own
#    time); and that its children are exactly the failing and flaky tests of
#    the run, each named by its test id (test.case.name), in the order of the
#    test.case events (the first at the run's start, each next 1 µs later)
#    and lasting the duration the report states, a failing one
#    with the error status, its outcome as description and the message of
#    its event;
# 5. with a built Jaeger UI (JAEGER_UI_ASSETS, or JAEGER_UI_SRC to build it),
#    takes a screenshot of the trace page with headless Chromium
#    (SCREENSHOT, default docs/jaeger-failing-run.png): the waterfall of
#    job.verify and its failing tests, and the first failing test's span
#    opened on its tags (every tag shown, the table not capped in height).
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
# coverage, exported as job.verify of job demo-job, with a child span for
# each failing or flaky test.
log "exporting a failing pytest run"
"$build/testresults" parse \
	--kind after_turn --command "python3 -m pytest -q" --exit-code 1 \
	--started-at 2025-11-20T10:00:00Z --ended-at 2025-11-20T10:00:04.2Z \
	--export --otlp-endpoint "127.0.0.1:$grpc_port" --otlp-insecure \
	--job demo-job --service-name "$service" --case-spans failed \
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
from datetime import datetime

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
event_message = {f["test.case.name"]: f.get("hangar.test.message") for f in fields[1:]}

# The case spans: one per failing or flaky test, children of job.verify.
# Jaeger sorts a trace's spans by start: the case spans start 1 µs apart, in
# the order of the test.case events.
outcomes = run.get("cases") or {}
want_cases = set(failing) | {i for i, o in outcomes.items() if o in ("failed", "error")} | set(run["flaky"] or [])
children = [s for s in trace["spans"] if s is not span]
names = [s["operationName"] for s in children]
assert len(names) == len(set(names)), f"a test has more than one span: {sorted(names)}"
assert set(names) == want_cases, (sorted(names), sorted(want_cases))
failure = {f["id"]: f for f in run["failures"]}
durations = run.get("durations") or {}
start_us = round(datetime.fromisoformat(run["started_at"].replace("Z", "+00:00")).timestamp() * 1e6)
assert span["startTime"] == start_us, (span["startTime"], start_us)
event_order = [f["test.case.name"] for f in fields[1:]]
by_start = [s["operationName"] for s in sorted(children, key=lambda s: s["startTime"])]
assert by_start == event_order, (by_start, event_order)
stated = 0
for child in children:
    name = child["operationName"]
    refs = [(r["refType"], r["spanID"]) for r in child["references"]]
    assert refs == [("CHILD_OF", span["spanID"])], (name, refs, span["spanID"])
    ctags = {t["key"]: t["value"] for t in child["tags"]}
    assert ctags.get("test.case.name") == name, (name, ctags.get("test.case.name"))
    assert ctags.get("hangar.test.run.id") == run["id"], (name, ctags.get("hangar.test.run.id"))
    assert ctags.get("test.suite.name") == run["command"], (name, ctags.get("test.suite.name"))
    assert ctags.get("hangar.test.flaky") is (name in (run["flaky"] or []) or failure.get(name, {}).get("flaky", False)), (name, ctags)
    outcome = outcomes.get(name) or failure.get(name, {}).get("outcome")
    if outcome in ("failed", "error"):
        assert ctags.get("error") is True, (name, ctags)
        assert ctags.get("otel.status_code") == "ERROR", (name, ctags.get("otel.status_code"))
        assert ctags.get("otel.status_description") == outcome, (name, ctags.get("otel.status_description"), outcome)
        assert ctags.get("test.case.result.status") == "fail", (name, ctags.get("test.case.result.status"))
        assert ctags.get("hangar.test.outcome") == outcome, (name, ctags.get("hangar.test.outcome"), outcome)
        assert ctags.get("hangar.test.message") == event_message.get(name), (name, ctags.get("hangar.test.message"), event_message.get(name))
        assert ctags["hangar.test.message"] or not failure.get(name, {}).get("message"), (name, "no message")
    else:
        assert "error" not in ctags and ctags.get("otel.status_code") != "ERROR", (name, ctags)
    assert child["startTime"] == start_us + event_order.index(name), (name, child["startTime"], start_us)
    if name in durations:
        want_us = round(durations[name] * 1e6)
        assert child["duration"] == want_us, (name, child["duration"], want_us)
        assert "hangar.test.duration_unknown" not in ctags, (name, ctags)
        stated += 1
    else:
        assert child["duration"] == 0, (name, child["duration"])
        assert ctags.get("hangar.test.duration_unknown") is True, (name, ctags)
n_err = sum(1 for c in children if any(t["key"] == "error" and t["value"] is True for t in c["tags"]))
print(f"trace {trace['traceID']}: span job.verify status ERROR \"{want_desc}\", "
      f"{len(logs)} events in order, {len(children)} case spans under it "
      f"({n_err} with error, {stated} with their stated duration), failing tests: {', '.join(failing)}")
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
// Opens the trace page with a name column wide enough for test ids, opens
// the span of the first failing test on its tags, and saves a screenshot of
// the page down to the end of the waterfall.
const puppeteer = require('puppeteer-core');
const [chromium, url, out, profile, testID] = process.argv.slice(2);
const width = 1200;
(async () => {
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--window-size=${width},1600`],
    defaultViewport: { width, height: 1600 },
  });
  try {
    const page = await browser.newPage();
    // The UI reads the width of its name column from localStorage.
    await page.evaluateOnNewDocument(() => {
      try { localStorage.setItem('spanNameColumnWidth', '0.38'); } catch (e) { /* about:blank */ }
    });
    await page.goto(url, { waitUntil: 'networkidle0', timeout: 30000 });
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    await page.waitForSelector('.span-name', { timeout: 15000 });
    // Each case span's row is named by its test id: open the first failure's.
    const rows = await page.$$('.span-name');
    if (rows.length < 2) throw new Error(`want job.verify and its case spans, got ${rows.length} rows`);
    let row = null;
    for (const r of rows) {
      if ((await r.evaluate((e) => e.textContent)).includes(testID)) { row = r; break; }
    }
    if (!row) throw new Error(`no span row named ${testID} among ${rows.length} rows`);
    // The tags table scrolls past 450px: let it show every tag.
    await page.addStyleTag({ content: '.KeyValueTable { max-height: none !important; }' });
    await row.click();
    await sleep(500);
    await (await page.waitForSelector('::-p-text(Tags:)', { timeout: 15000 })).click();
    await sleep(500);
    // Down to the last row of the waterfall, which follows the opened span.
    const bottom = await page.evaluate(() => {
      let b = 0;
      for (const e of document.querySelectorAll('.span-row')) b = Math.max(b, e.getBoundingClientRect().bottom);
      return Math.ceil(b);
    });
    if (bottom < 200) throw new Error(`waterfall ends at ${bottom}px`);
    await page.screenshot({ path: out, clip: { x: 0, y: 0, width, height: bottom + 8 } });
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
EOF
profile=$(mktemp -d)
first_failing=$(jq -r '.failures[0].id' "$work/run.json")
node "$shot/shot.cjs" "$chromium" "http://127.0.0.1:$query_port/trace/$trace_id" "$screenshot" "$profile" "$first_failing"
rm -rf "$profile"
log "screenshot: $screenshot ($(wc -c <"$screenshot") bytes)"
[[ ${KEEP:-} == 1 ]] && log "Jaeger left running: pid $jaeger_pid"
exit 0
