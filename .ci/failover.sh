#!/usr/bin/env bash
# A primary and a streaming standby of PostgreSQL 15 of their own, for the failover test
# (TestFailover in agent/background/riverqueue):
#
#	eval "$(bash .ci/failover.sh start)"    # prints TYPESHIFT_TEST_FAILOVER_URL and TYPESHIFT_TEST_FAILOVER_SCRIPT
#	bash .ci/failover.sh promote            # stops the primary with -m immediate and promotes the standby
#	bash .ci/failover.sh stop               # stops both and removes them
#
# Run as root on Debian 12 with postgresql-15 installed (.ci/postgres.sh). The clusters run as postgres, listen on
# 127.0.0.1 only, on TYPESHIFT_FAILOVER_PORT (default 5491) and the port after it, and keep their data under
# TYPESHIFT_FAILOVER_DIR. The standby is made by pg_basebackup from the primary and replicates synchronously, so
# that a commit the primary acknowledged is on the standby. Everything it says goes to stderr except the exports.
set -euo pipefail

PORT=${TYPESHIFT_FAILOVER_PORT:-5491}
SPORT=$((PORT + 1))
DIR=${TYPESHIFT_FAILOVER_DIR:-/var/tmp/typeshift-failover-$PORT}
PASSWORD=${TYPESHIFT_PG_PASSWORD:-typeshift}
BIN=/usr/lib/postgresql/15/bin

log() { echo "failover.sh: $*" >&2; }
as_pg() { runuser -u postgres -- "$@"; }

stop_all() {
	for d in "$DIR/primary" "$DIR/standby"; do
		if [ -f "$d/postmaster.pid" ]; then as_pg "$BIN/pg_ctl" -D "$d" -m immediate stop >&2 || true; fi
	done
	rm -rf "$DIR"
}

case "${1:-}" in
start)
	stop_all
	mkdir -p "$DIR"
	chown postgres:postgres "$DIR"
	as_pg "$BIN/initdb" -D "$DIR/primary" -U postgres --auth=trust >/dev/null
	cat >>"$DIR/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
wal_level = replica
max_wal_senders = 4
hot_standby = on
max_connections = 60
shared_buffers = 32MB
fsync = on
CONF
	cat >"$DIR/primary/pg_hba.conf" <<HBA
local all all trust
host all postgres 127.0.0.1/32 trust
host replication postgres 127.0.0.1/32 trust
host all all 127.0.0.1/32 scram-sha-256
HBA
	as_pg "$BIN/pg_ctl" -D "$DIR/primary" -l "$DIR/primary.log" -w start >&2
	as_pg "$BIN/psql" -h "$DIR" -p "$PORT" -X -q -v ON_ERROR_STOP=1 -v pw="$PASSWORD" >&2 <<'SQL'
SELECT format('CREATE ROLE typeshift LOGIN CREATEDB PASSWORD %L', :'pw') \gexec
CREATE DATABASE typeshift OWNER typeshift;
SQL
	as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PORT" -U postgres -D "$DIR/standby" -R -X stream \
		-d "application_name=standby" >&2
	sed -i "s/^port = $PORT/port = $SPORT/" "$DIR/standby/postgresql.conf"
	as_pg "$BIN/pg_ctl" -D "$DIR/standby" -l "$DIR/standby.log" -w start >&2
	# Synchronous from now on: a commit waits for the standby (before it existed, it would have waited for ever).
	as_pg "$BIN/psql" -h "$DIR" -p "$PORT" -X -q -c "ALTER SYSTEM SET synchronous_standby_names = 'standby'" -c "SELECT pg_reload_conf()" >&2
	for _ in $(seq 1 50); do
		state=$(as_pg "$BIN/psql" -h "$DIR" -p "$PORT" -XtAc "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'" || true)
		[ "$state" = sync ] && break
		sleep 0.2
	done
	log "primary on 127.0.0.1:$PORT, synchronous standby on 127.0.0.1:$SPORT ($DIR)"
	echo "export TYPESHIFT_TEST_FAILOVER_URL='postgres://typeshift:$PASSWORD@127.0.0.1:$PORT,127.0.0.1:$SPORT/typeshift?sslmode=disable&target_session_attrs=read-write&connect_timeout=2'"
	echo "export TYPESHIFT_TEST_FAILOVER_SCRIPT='$(cd "$(dirname "$0")" && pwd)/failover.sh'"
	;;
promote)
	as_pg "$BIN/pg_ctl" -D "$DIR/primary" -m immediate stop >&2
	as_pg "$BIN/pg_ctl" -D "$DIR/standby" -w promote >&2
	log "the standby on 127.0.0.1:$SPORT is the primary"
	;;
stop)
	stop_all
	;;
*)
	echo "usage: $0 start|promote|stop" >&2
	exit 2
	;;
esac
