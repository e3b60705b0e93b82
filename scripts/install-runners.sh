#!/usr/bin/env bash
# Installs the real test runners that the end-to-end tests of `testresults run`
# wrap (check/ and cmd/testresults), on a Debian machine:
#
#   pytest and pytest-rerunfailures  Debian packages (python3-pytest,
#                                    python3-pytest-rerunfailures)
#   gotestsum                        go install, into $(go env GOPATH)/bin
#   jest and jest-junit              npm, pinned, into a cache folder outside
#                                    the repository ($TESTRESULTS_RUNNERS_DIR,
#                                    default ~/.cache/testresults-runners)
#
# Safe to run again: each step is skipped when its runner is already there at
# the pinned version, so a second run takes well under a second. Needs root
# for apt-get (or sudo).
set -euo pipefail

GOTESTSUM_VERSION=v1.13.0
JEST_VERSION=29.7.0
JEST_JUNIT_VERSION=16.0.0

runners_dir=${TESTRESULTS_RUNNERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/testresults-runners}

say() { echo "install-runners: $*"; }

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
	sudo_cmd=(sudo)
fi

# pytest and its rerun plugin, from Debian: the tests run /usr/bin/python3 -m
# pytest, so another python3 first on PATH does not hide them.
if /usr/bin/python3 -c 'import pytest, pytest_rerunfailures' 2>/dev/null; then
	say "pytest and pytest-rerunfailures present"
else
	say "installing python3-pytest python3-pytest-rerunfailures"
	"${sudo_cmd[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq python3-pytest python3-pytest-rerunfailures >/dev/null
fi

# gotestsum.
gobin=$(go env GOBIN)
if [[ -z "$gobin" ]]; then
	gobin="$(go env GOPATH)/bin"
fi
if "$gobin/gotestsum" --version 2>/dev/null | grep -q "${GOTESTSUM_VERSION#v}"; then
	say "gotestsum $GOTESTSUM_VERSION present"
else
	say "installing gotestsum $GOTESTSUM_VERSION into $gobin"
	go install "gotest.tools/gotestsum@$GOTESTSUM_VERSION"
fi

# jest and jest-junit, pinned, in a folder of their own.
stamp="$runners_dir/.installed-jest-$JEST_VERSION-jest-junit-$JEST_JUNIT_VERSION"
if [[ -f "$stamp" && -x "$runners_dir/node_modules/.bin/jest" ]]; then
	say "jest $JEST_VERSION and jest-junit $JEST_JUNIT_VERSION present in $runners_dir"
else
	if ! command -v npm >/dev/null; then
		say "installing nodejs and npm"
		"${sudo_cmd[@]}" apt-get update -qq
		DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq nodejs npm >/dev/null
	fi
	say "installing jest $JEST_VERSION and jest-junit $JEST_JUNIT_VERSION into $runners_dir"
	mkdir -p "$runners_dir"
	if [[ ! -f "$runners_dir/package.json" ]]; then
		echo '{"name": "testresults-runners", "private": true}' >"$runners_dir/package.json"
	fi
	npm install --prefix "$runners_dir" --no-audit --no-fund --loglevel=error \
		"jest@$JEST_VERSION" "jest-junit@$JEST_JUNIT_VERSION" >/dev/null
	rm -f "$runners_dir"/.installed-jest-*
	touch "$stamp"
fi
say "done (runners folder: $runners_dir)"
