#!/usr/bin/env bash
# Re-creates every report under testdata/runners/*/reports by running the real
# runners on the small projects beside this script. It is for humans: CI never
# runs it, and the committed reports are the bytes the runners wrote.
#
# Each project is copied to a fixed scratch folder ($SCRATCH/<runner>, default
# /tmp/testresults-runners) and run there, so that runners which write absolute
# paths (pytest skip messages, PHPUnit, Ant, CTest, Go panics) write that
# neutral folder and not the path of the clone. The reports are copied back.
#
# Usage: testdata/runners/regenerate.sh [runner...]   (default: all)
# Runners: pytest pytest-cov pytest-teardown pytest-collection-error node-test go jest vitest mocha
#          playwright maven ant phpunit ctest
#
# What each runner needs (Debian 12 packages, Go module proxy, npm registry):
#   pytest     apt-get install python3-pytest python3-pytest-rerunfailures python3-pytest-cov
#   pytest-collection-error   apt-get install python3-pytest
#   pytest-teardown           apt-get install python3-pytest
#   pytest-cov apt-get install python3-pytest python3-pytest-cov (pytest-cov 4.0.0, coverage.py 6.5.0)
#   node-test  node v20 (its built-in test runner and junit reporter)
#   go         go install gotest.tools/gotestsum@v1.13.0
#              go install github.com/jstemmer/go-junit-report/v2@v2.1.0
#   jest vitest mocha playwright   node + npm (npm ci in the scratch copy)
#   maven      apt-get install maven-debian-helper libsurefire-java junit4 (mvn -o)
#   ant        apt-get install ant ant-optional junit4
#   phpunit    apt-get install phpunit
#   ctest      apt-get install cmake g++
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SCRATCH=${SCRATCH:-/tmp/testresults-runners}

# prep RUNNER [PROJECT]: fresh scratch copy of the project (default: the
# folder beside this script) without its old reports; cd there.
prep() {
	local r=$1 src=${2:-$HERE/$1}
	rm -rf "${SCRATCH:?}/$r"
	mkdir -p "$SCRATCH"
	cp -r "$src" "$SCRATCH/$r"
	rm -rf "$SCRATCH/$r/reports" "$SCRATCH/$r/node_modules"
	mkdir -p "$SCRATCH/$r/reports"
	cd "$SCRATCH/$r"
}

# npm_deps: install the locked npm packages. npm ci refuses some lock files
# that npm install itself wrote (optional platform packages), hence the
# fallback, which still follows the lock file.
npm_deps() {
	npm ci --no-audit --no-fund || npm install --no-audit --no-fund
}

# collect RUNNER: copy the reports written in the scratch copy back.
collect() {
	local r=$1
	rm -rf "$HERE/$r/reports"
	cp -r "$SCRATCH/$r/reports" "$HERE/$r/reports"
	echo "$r: $(ls "$HERE/$r/reports" | tr '\n' ' ')"
}

run_pytest() {
	prep pytest
	# The tests fail on purpose: pytest exits 1.
	/usr/bin/python3 -m pytest -p no:cacheprovider -o junit_family=xunit1 \
		--junitxml=reports/pytest-xunit1.xml -q || true
	# The xunit2 run also measures the coverage of calc.py (pytest-cov,
	# Cobertura XML).
	/usr/bin/python3 -m pytest -p no:cacheprovider -o junit_family=xunit2 \
		--junitxml=reports/pytest-xunit2.xml --cov=calc --cov-report=xml:reports/coverage.xml -q || true
	collect pytest
}

run_pytest_cov() {
	prep pytest-cov
	# One pytest-cov run writes the same coverage twice, as Cobertura and as
	# lcov; a test fails on purpose, so pytest exits 1. pytest's summary and
	# coverage.py's own totals are kept beside them for the golden test.
	/usr/bin/python3 -m pytest -p no:cacheprovider -o junit_family=xunit2 \
		--junitxml=reports/pytest.xml --cov --cov-report=xml:reports/coverage.xml \
		--cov-report=lcov:reports/lcov.info -q >reports/pytest-output.txt || true
	/usr/bin/python3 -m coverage report >reports/coverage-report.txt
	collect pytest-cov
}

run_pytest_teardown() {
	prep pytest-teardown
	# Fixture teardowns that fail after a skip, a pass and a failure; pytest
	# exits 1. Its own summary line is kept beside the report.
	/usr/bin/python3 -m pytest -p no:cacheprovider -o junit_family=xunit2 \
		--junitxml=reports/pytest.xml -q >reports/pytest-output.txt || true
	collect pytest-teardown
}

run_pytest_collection_error() {
	local r=pytest-collection-error
	# The project is in testdata/projects (the end-to-end test of run
	# --expect-ids runs it too); the reports and expected-ids.txt are kept
	# here. test_parse.py imports parse_helper, which the project lacks.
	prep "$r" "$HERE/../projects/$r"
	# pytest's default: the collection error interrupts the session (exit 2).
	/usr/bin/python3 -m pytest -p no:cacheprovider -q \
		--junitxml=reports/pytest-interrupted.xml || true
	# The other modules still run (exit 1).
	/usr/bin/python3 -m pytest -p no:cacheprovider -q --continue-on-collection-errors \
		--junitxml=reports/pytest-continued.xml || true
	collect "$r"
	# Every test of the project, with an empty parse_helper.py so that all
	# are collected: pytest's node ids (test_calc.py::TestRounding::test_x)
	# as its JUnit report names them (test_calc.TestRounding::test_x).
	touch parse_helper.py
	/usr/bin/python3 -m pytest -p no:cacheprovider --collect-only -q |
		awk -F'::' '/::/ { sub(/\.py$/, "", $1); gsub("/", ".", $1); id = $1; for (i = 2; i < NF; i++) id = id "." $i; print id "::" $NF }' \
			>"$HERE/$r/expected-ids.txt"
	rm parse_helper.py
	echo "$r: expected-ids.txt ($(wc -l <"$HERE/$r/expected-ids.txt") ids)"
}

run_node_test() {
	prep node-test
	# node's built-in runner with its junit reporter (and the spec reporter
	# on stdout); tests fail on purpose, so node exits 1.
	node --test --test-reporter=junit --test-reporter-destination=reports/node-junit.xml \
		--test-reporter=spec --test-reporter-destination=stdout >reports/node-spec.txt || true
	collect node-test
}

run_go() {
	prep go
	local gobin
	gobin=$(go env GOPATH)/bin
	# gotestsum with retries, on the package without the panic (gotestsum
	# does not rerun after a suspected panic). TestFlaky fails once, then passes.
	FLAKY_STATE_DIR=$(mktemp -d) "$gobin/gotestsum" --junitfile reports/gotestsum-rerun.xml \
		--rerun-fails=2 --packages ./calc -- -count=1 || true
	# gotestsum on every package, no retries: TestFlaky fails, crash panics.
	FLAKY_STATE_DIR=$(mktemp -d) "$gobin/gotestsum" --junitfile reports/gotestsum.xml \
		--packages ./... -- -count=1 || true
	# go-junit-report v2 reading the verbose text output of go test.
	FLAKY_STATE_DIR=$(mktemp -d) go test -v -count=1 ./... 2>&1 |
		"$gobin/go-junit-report" >reports/go-junit-report.xml || true
	collect go
}

run_jest() {
	prep jest
	npm_deps
	# jest exits 1: tests fail on purpose. Suite errors (a test file that
	# fails to load) are written only when asked.
	JEST_JUNIT_OUTPUT_DIR=reports JEST_JUNIT_OUTPUT_NAME=jest-junit.xml \
		JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true npx jest --ci --coverage || true
	# istanbul's lcov and Cobertura reports of calc.js (package.json).
	cp coverage/lcov.info coverage/cobertura-coverage.xml reports/
	collect jest
}

run_vitest() {
	prep vitest
	npm_deps
	# vitest exits 1: tests fail on purpose.
	npx vitest run --reporter=default --reporter=junit \
		--outputFile.junit=reports/vitest-junit.xml || true
	collect vitest
}

run_mocha() {
	prep mocha
	npm_deps
	# mocha exits with the number of failures: tests fail on purpose.
	npx mocha --reporter xunit --reporter-option output=reports/mocha-xunit.xml \
		sample.test.js || true
	npx mocha --reporter mocha-junit-reporter \
		--reporter-option mochaFile=reports/mocha-junit-reporter.xml,includePending=true \
		sample.test.js || true
	collect mocha
}

run_playwright() {
	prep playwright
	npm_deps
	# No browser is installed or needed. Exits 1: tests fail on purpose.
	npx playwright test || true
	collect playwright
}

run_maven() {
	prep maven
	# Offline in effect: settings.xml mirrors every repository to the Debian
	# Maven repository on disk. testFailureIgnore keeps mvn at exit 0.
	mvn -B -s settings.xml -Dmaven.repo.local=.m2/repository test
	cp target/surefire-reports/TEST-*.xml reports/
	collect maven
}

run_ant() {
	prep ant
	# build.xml: <junit> with the xml formatter writes reports/TEST-*.xml,
	# <junitreport> merges them into reports/TESTS-TestSuites.xml.
	ant -noinput test
	collect ant
}

run_phpunit() {
	prep phpunit
	# phpunit exits 2: tests fail on purpose.
	phpunit --do-not-cache-result --log-junit reports/phpunit-junit.xml tests || true
	collect phpunit
}

run_ctest() {
	prep ctest
	cmake -S . -B build
	# ctest exits 8: tests fail on purpose. Each test gets one retry.
	(cd build && FLAKY_STATE_DIR=$(mktemp -d) ctest --repeat until-pass:2 \
		--output-junit ../reports/ctest-junit.xml) || true
	collect ctest
}

all=(pytest pytest-cov pytest-teardown pytest-collection-error node-test go jest vitest mocha playwright maven ant phpunit ctest)
for r in "${@:-${all[@]}}"; do
	"run_${r//-/_}"
done
