#!/usr/bin/env bash
# scripts/install-check.sh [--ci | --no-build]
#
# What a new user does, on this machine: build the release snapshot of HEAD
# (scripts/release-snapshot.sh --once, which checks the archives, the SBOMs,
# SHA256SUMS and the package), install its Debian package with dpkg -i into
# this machine's root, then run the README's quickstart, extracted from the
# README itself (internal/readmetest), with the installed
# /usr/bin/testresults, on a pytest project and on a Go module
# (testdata/projects/pytest and testdata/projects/gotestsum). The package is
# removed again on the way out, whatever happened.
#
# --ci builds this machine's platform only, once
# (scripts/release-snapshot.sh --single-target: the same .goreleaser.yaml
# and its nfpm .deb, without the other five targets and without the second
# build that scripts/release-snapshot.sh does without --once), so CI can
# afford it on every change; the default builds all six targets.
#
# --no-build installs the .deb already in dist/ (from an earlier run of
# scripts/release-snapshot.sh) instead of building one.
#
# Needs root (dpkg -i, as CI runs it), Debian's dpkg, Go, python3's pytest
# with pytest-rerunfailures (scripts/install-runners.sh); it refuses to run
# where a testresults package or a /usr/bin/testresults is already there,
# so it never replaces what someone installed. Prints how long each part
# took.
set -euo pipefail

build=true
snapshot=(--once)
case "${1:-}" in
  "") ;;
  --ci) snapshot=(--single-target) ;;
  --no-build) build=false ;;
  *) echo "usage: scripts/install-check.sh [--ci | --no-build]" >&2; exit 2 ;;
esac

fail() { echo "install-check: $*" >&2; exit 1; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
commit=$(git rev-parse HEAD)

[ "$(id -u)" -eq 0 ] || fail "dpkg -i needs root (CI runs as root)"
command -v dpkg >/dev/null || fail "no dpkg: this check is for Debian and its derivatives"
if dpkg-query -W -f '${Status}' testresults 2>/dev/null | grep -q 'install ok installed'; then
  fail "a testresults package is installed already: remove it first (dpkg -r testresults)"
fi
[ ! -e /usr/bin/testresults ] || fail "/usr/bin/testresults exists already and is not this check's: remove it first"

start=$(date +%s)
if $build; then
  bash scripts/release-snapshot.sh "${snapshot[@]}"
fi
built=$(date +%s)

arch=$(dpkg --print-architecture)
shopt -s nullglob
debs=(dist/testresults_*_linux_"$arch".deb)
shopt -u nullglob
[ "${#debs[@]}" -eq 1 ] || fail "want one dist/testresults_*_linux_$arch.deb, found ${#debs[@]} (run scripts/release-snapshot.sh)"
deb=${debs[0]}

installed=false
cleanup() {
  if $installed; then
    dpkg -r testresults >/dev/null || echo "install-check: dpkg -r testresults failed: remove it by hand" >&2
  fi
}
trap cleanup EXIT

dpkg -i "$deb"
installed=true
dpkg -L testresults | grep -qx /usr/bin/testresults || fail "$deb does not install /usr/bin/testresults"
version=$(/usr/bin/testresults --version)
echo "install-check: /usr/bin/testresults --version: $version"
if $build; then
  case "$version" in
    *"(commit $commit, "*) ;;
    *) fail "the installed testresults is not of HEAD ($commit): $version" ;;
  esac
fi

# The README's quickstart, block by block, with the installed binary; CI=true
# makes an absent pytest a failure, not a skip.
log=$(mktemp "${TMPDIR:-/tmp}/install-check.XXXXXX")
if ! CI=true TESTRESULTS_README_BIN=/usr/bin/testresults \
  go test -count=1 -v -run '^(TestQuickstart|TestSetUp)$' ./internal/readmetest/ >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  fail "the README's quickstart failed with the installed package"
fi
grep -E '^ *(--- |ok )|testresults: /usr/bin/testresults' "$log" || true
rm -f "$log"
end=$(date +%s)

echo "install-check: ok: snapshot built in $((built - start)) s, installed and the quickstart run in $((end - built)) s"
