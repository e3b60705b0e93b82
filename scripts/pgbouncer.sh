#!/usr/bin/env bash
# A throwaway PgBouncer in transaction pooling mode, on 127.0.0.1 and a
# free port, in front of a PostgreSQL server (scripts/postgres.sh starts
# one), for the store's scale test.
#
#   eval "$(scripts/pgbouncer.sh start "$TESTRESULTS_POSTGRES_URL")"
#                                # exports TESTRESULTS_PGBOUNCER_URL
#   scripts/pgbouncer.sh stop    # stops it, removes its folder
#
# start installs Debian's pgbouncer when it is missing (as root), runs it as
# the postgres user when run as root (PgBouncer refuses to run as root), and
# prints one line: export TESTRESULTS_PGBOUNCER_URL='postgres://...'. That
# URL carries default_query_exec_mode=exec: behind transaction pooling a
# server connection changes hands after every transaction, so the store
# must keep no prepared statement on it (see docs/scale.md).
# PGBOUNCER_POOL_SIZE (default 20) is the server connections per database
# and user; PGBOUNCER_MAX_CLIENTS (default 1000) the client connections.
# The folder is remembered in $TESTRESULTS_PGBOUNCER_STATE (default
# ${TMPDIR:-/tmp}/testresults-pgbouncer.state).
set -euo pipefail

state_file=${TESTRESULTS_PGBOUNCER_STATE:-${TMPDIR:-/tmp}/testresults-pgbouncer.state}

log() { echo "pgbouncer.sh: $*" >&2; }

# as_owner and free_port.
# shellcheck source=lib/pg.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/pg.sh"

start() {
	local server=${1:-}
	local bin dir port rest hostport host pgport db user i
	if [ -z "$server" ]; then
		log "usage: $0 start postgres://user@host:port/db?..."
		exit 2
	fi
	bin=$(command -v pgbouncer || true)
	if [ -z "$bin" ] && [ -x /usr/sbin/pgbouncer ]; then
		bin=/usr/sbin/pgbouncer
	fi
	if [ -z "$bin" ]; then
		if [ "$(id -u)" != 0 ]; then
			log "pgbouncer is not installed; run as root or: apt-get install -y pgbouncer"
			exit 1
		fi
		log "installing pgbouncer from Debian"
		apt-get update >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y pgbouncer >&2
		bin=/usr/sbin/pgbouncer
	fi
	# postgres://user@host:port/db?params (no password: scripts/postgres.sh
	# clusters trust local connections).
	rest=${server#postgres://}
	rest=${rest#postgresql://}
	user=${rest%%@*}
	rest=${rest#*@}
	hostport=${rest%%/*}
	db=${rest#*/}
	db=${db%%\?*}
	host=${hostport%%:*}
	pgport=${hostport##*:}
	if [ -f "$state_file" ]; then
		log "removing the state of an earlier PgBouncer ($(cat "$state_file"))"
		stop
	fi
	dir=$(mktemp -d "${TMPDIR:-/tmp}/testresults-pgbouncer.XXXXXX")
	chmod 0755 "$dir"
	echo "\"$user\" \"\"" >"$dir/userlist.txt"
	for i in 1 2 3 4 5; do
		port=$(free_port)
		cat >"$dir/pgbouncer.ini" <<INI
[databases]
$db = host=$host port=$pgport dbname=$db user=$user

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
default_pool_size = ${PGBOUNCER_POOL_SIZE:-20}
max_client_conn = ${PGBOUNCER_MAX_CLIENTS:-1000}
max_db_connections = ${PGBOUNCER_POOL_SIZE:-20}
ignore_startup_parameters = extra_float_digits,search_path
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
INI
		if [ "$(id -u)" = 0 ]; then
			chown -R postgres:postgres "$dir"
		fi
		if as_owner "$bin" -d "$dir/pgbouncer.ini" >&2; then
			local ok=
			for _ in $(seq 1 50); do
				if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
					ok=1
					break
				fi
				sleep 0.1
			done
			[ -n "$ok" ] && break
		fi
		port=
	done
	if [ -z "$port" ]; then
		cat "$dir/pgbouncer.log" >&2 || true
		exit 1
	fi
	echo "$dir" >"$state_file"
	echo "export TESTRESULTS_PGBOUNCER_URL='postgres://$user@127.0.0.1:$port/$db?sslmode=disable&default_query_exec_mode=exec'"
}

stop() {
	local dir
	if [ ! -f "$state_file" ]; then
		log "no PgBouncer to stop"
		return 0
	fi
	dir=$(cat "$state_file")
	if [ -f "$dir/pgbouncer.pid" ]; then
		local pid
		pid=$(cat "$dir/pgbouncer.pid")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -rf "$dir" "$state_file"
}

case "${1:-}" in
start) start "${2:-}" ;;
stop) stop ;;
*)
	echo "usage: $0 start POSTGRES_URL | stop" >&2
	exit 2
	;;
esac
