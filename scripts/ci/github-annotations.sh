#!/bin/sh
# github-annotations.sh RESULTS.json [CAP]
#
# Prints one GitHub Actions workflow command per failing test of a run
# written by `testresults run` (its TEST-RESULTS.json):
#
#   - with a comparison (the run had --base-run) that is available: one
#     ::error per NEW failure, titled "new failure: ID" ("new error: ID"
#     for an errored test);
#   - with no base, or a comparison that is unavailable: one ::error per
#     failure of the run, titled "failure: ID" / "error: ID" (a flaky one
#     is a ::warning titled "flaky failure: ID"), after a ::warning that
#     says why no comparison was made when a base was given;
#   - at most CAP annotations (default 10, as the action; 0 prints none), then a ::notice
#     that says how many were left out;
#   - a ::warning when the run is incomplete, with its reasons.
#
# A failure whose report names its file (and line) is annotated there
# (file=, line=), so GitHub shows it on that line of the diff: the file as
# the report gives it, relative to the folder the script runs in (the
# check's), made relative to GITHUB_WORKSPACE; a file that is not there, or
# lies outside the workspace, is left out and the annotation stays on the
# job. The line is the first line of the test (from 1).
#
# Messages are escaped as the workflow command rules say: % as %25, CR as
# %0D, LF as %0A, and in properties (the title) also : as %3A and , as %2C.
# A message is one line, so a test's output cannot start a command of its
# own.
#
# It needs python3 (or a python that is Python 3), which GitHub's hosted
# runners have. Exit codes: 0 printed, 2 usage error, 3 the file is not a
# run.
set -eu

if [ "$#" -lt 1 ] || [ "$#" -gt 2 ]; then
	echo "usage: github-annotations.sh RESULTS.json [CAP]" >&2
	exit 2
fi

py=
for c in python3 python; do
	if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info[0] != 3)' 2>/dev/null; then
		py=$c
		break
	fi
done
if [ -z "$py" ]; then
	echo "::warning title=testresults::no python3 on this runner: failures are not annotated (the job summary lists them)"
	exit 0
fi

exec "$py" - "$@" <<'PYTHON'
import json
import os
import sys


def data(s):
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def prop(s):
    return data(s).replace(":", "%3A").replace(",", "%2C")


def command(kind, title, message, where=None):
    props = ""
    if where:
        props = "".join("%s=%s," % (k, prop(v)) for k, v in where)
    return "::%s %stitle=%s::%s" % (kind, props, prop(title), data(message))


def location(f, workspace):
    """The file= and line= of failure f, [] when its report names no file
    that is there, inside the workspace."""
    name = f.get("file")
    if not isinstance(name, str) or name == "" or "\0" in name:
        return []
    path = os.path.abspath(name)
    if not os.path.isfile(path):
        return []
    if workspace:
        base = os.path.abspath(workspace)
        if os.path.commonpath([base, path]) != base:
            return []
        path = os.path.relpath(path, base)
    else:
        path = os.path.relpath(path)
    where = [("file", path.replace(os.sep, "/"))]
    line = f.get("line")
    if isinstance(line, int) and not isinstance(line, bool) and line >= 1:
        where.append(("line", str(line)))
    return where


def main(argv):
    path = argv[1]
    cap_arg = argv[2] if len(argv) > 2 else "10"
    if not cap_arg.isdigit():
        sys.stderr.write("github-annotations.sh: CAP %r: want a whole number\n" % cap_arg)
        return 2
    cap = int(cap_arg)
    try:
        with open(path, "rb") as f:
            run = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError) as e:
        sys.stderr.write("github-annotations.sh: %s: %s\n" % (path, e))
        return 3
    if not isinstance(run, dict) or "failures" not in run:
        sys.stderr.write("github-annotations.sh: %s: not a run (no failures)\n" % path)
        return 3

    workspace = os.environ.get("GITHUB_WORKSPACE", "")
    out = []
    if run.get("complete") is False:
        reasons = [r for r in (run.get("incomplete_reasons") or []) if isinstance(r, str)]
        out.append(command("warning", "testresults: run incomplete",
                           "; ".join(reasons) or "the run is incomplete"))

    new = False
    failures = run.get("failures") or []
    if "available" in run:  # the run was compared with a base
        if run.get("available") is True:
            new = True
            failures = run.get("new_failures") or []
        else:
            reason = run.get("unavailable_reason") or "unknown"
            out.append(command("warning", "testresults: no comparison",
                               "the comparison with the base is unavailable (%s): every failure is annotated" % reason))

    failures = [f for f in failures if isinstance(f, dict)]
    for f in failures[:cap]:
        fid = str(f.get("id") or "(unnamed test)")
        what = "error" if f.get("outcome") == "error" else "failure"
        level = "error"
        if new:
            what = "new " + what
        elif f.get("flaky") is True:
            what, level = "flaky " + what, "warning"
        message = f.get("message")
        if not isinstance(message, str) or message == "":
            message = "(no message)"
        out.append(command(level, "%s: %s" % (what, fid), message, location(f, workspace)))
    # The failing tests in all: the run lists the first failures only
    # (with their messages), so the counts say how many there are.
    total = len(failures)
    counts = run.get("counts")
    if not new and isinstance(counts, dict):
        stated = [counts.get(k) for k in ("failed", "errors")]
        if all(isinstance(n, int) and not isinstance(n, bool) for n in stated):
            total = max(total, sum(stated))
    shown = min(len(failures), cap)
    if total > shown:
        left = total - shown
        out.append(command("notice", "testresults",
                           "%d more %s%s not annotated: see the job summary's packet and the run file (the results output)"
                           % (left, "new " if new else "", "failing test is" if left == 1 else "failing tests are")))
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0


sys.exit(main(sys.argv))
PYTHON
