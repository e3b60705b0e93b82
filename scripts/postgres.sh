#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the store tests, on 127.0.0.1 and a
# free port, in a temporary folder.
#
#   eval "$(scripts/postgres.sh start)"   # exports TESTRESULTS_POSTGRES_URL
#   scripts/postgres.sh stop              # stops the cluster, removes its folder
#
# start installs PostgreSQL from Debian when it is missing (as root), runs
# initdb and pg_ctl as the postgres user when run as root, and prints one
# line: export TESTRESULTS_POSTGRES_URL='postgres://...'. The cluster's
# folder is remembered in $TESTRESULTS_PG_STATE (default
# ${TMPDIR:-/tmp}/testresults-postgres.state) so that stop finds it.
set -euo pipefail

state_file=${TESTRESULTS_PG_STATE:-${TMPDIR:-/tmp}/testresults-postgres.state}

log() { echo "postgres.sh: $*" >&2; }

pg_bindir() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			echo "$d"
		fi
	done | sort -V | tail -n 1
}

# as_owner and free_port.
# shellcheck source=lib/pg.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/pg.sh"

start() {
	local bin dir port url i
	bin=$(pg_bindir)
	if [ -z "$bin" ]; then
		if [ "$(id -u)" != 0 ]; then
			log "PostgreSQL is not installed; run as root or: apt-get install -y postgresql"
			exit 1
		fi
		log "installing PostgreSQL from Debian"
		apt-get update >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql >&2
		bin=$(pg_bindir)
	fi
	if [ -f "$state_file" ]; then
		local old
		old=$(cat "$state_file")
		if [ -d "$old/data" ] && as_owner "$bin/pg_ctl" -D "$old/data" status >/dev/null 2>&1; then
			log "a cluster is already running ($old); stop it first"
			exit 1
		fi
		# Left by a run that was killed before it could stop its cluster.
		log "removing the state of a cluster that no longer runs ($old)"
		rm -rf "$old" "$state_file"
	fi
	dir=$(mktemp -d "${TMPDIR:-/tmp}/testresults-postgres.XXXXXX")
	chmod 0755 "$dir"
	mkdir "$dir/data" "$dir/socket"
	if [ "$(id -u)" = 0 ]; then
		chown -R postgres:postgres "$dir"
	fi
	as_owner "$bin/initdb" -D "$dir/data" --username=postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		exit 1
	}
	for i in 1 2 3 4 5; do
		port=$(free_port)
		if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
			-o "-c listen_addresses=127.0.0.1 -p $port -k $dir/socket -c fsync=off" start >&2; then
			break
		fi
		port=
	done
	if [ -z "$port" ]; then
		cat "$dir/server.log" >&2 || true
		exit 1
	fi
	echo "$dir" >"$state_file"
	as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -q -c 'CREATE DATABASE testresults' >&2
	url="postgres://postgres@127.0.0.1:$port/testresults?sslmode=disable"
	echo "$url" >"$dir/url"
	echo "export TESTRESULTS_POSTGRES_URL='$url'"
}

stop() {
	local bin dir
	if [ ! -f "$state_file" ]; then
		log "no cluster to stop"
		return 0
	fi
	dir=$(cat "$state_file")
	bin=$(pg_bindir)
	if [ -d "$dir/data" ]; then
		as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
	fi
	rm -rf "$dir" "$state_file"
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
url) cat "$(cat "$state_file")/url" ;;
*)
	echo "usage: $0 start|stop|url" >&2
	exit 2
	;;
esac
