# Sourced by scripts/postgres.sh and scripts/pgbouncer.sh: what both need to
# run a throwaway server on 127.0.0.1. The sourcing script defines log.

# as_owner CMD...: runs CMD as the postgres user when run as root (initdb,
# pg_ctl and PgBouncer refuse root), as the caller otherwise.
as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# free_port: prints a port on 127.0.0.1 that nothing listens on (a random
# one of 20000-59999, up to 200 tries). The caller retries when a server
# loses the race for it.
free_port() {
	local p i
	for i in $(seq 1 200); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	log "no free port found"
	return 1
}
