#!/usr/bin/env bash
# Starts PgBouncer (Debian 12's package, 1.18) in transaction pooling mode in
# front of the PostgreSQL of .ci/postgres.sh, and prints the variable that
# points the storage tests' second pass at it:
#
#	eval "$(bash .ci/postgres.sh)"
#	eval "$(bash .ci/pgbouncer.sh)"
#	go test ./storage/postgres/...
#
# Run as root on Debian 12, after .ci/postgres.sh (it reads the same
# TYPESHIFT_PG_PASSWORD). Idempotent: it installs pgbouncer only when missing
# and starts it only when nothing listens on its port. Everything it says goes
# to stderr except the export line.
#
# Any database name is served (the "*" entry), so that a test may create a
# database of its own and reach it through the pooler; PgBouncer 1.18 passes
# no search_path from a client to the server, so a test database carries its
# schema in its own search_path setting (see package pgtest). Pool sizes are
# small, as a pooler's are: clients queue for the server connections.
set -euo pipefail

PORT=${TYPESHIFT_PGBOUNCER_PORT:-6432}
PGPORT=${TYPESHIFT_PG_PORT:-5432}
PASSWORD=${TYPESHIFT_PG_PASSWORD:-typeshift}
DIR=${TYPESHIFT_PGBOUNCER_DIR:-/var/tmp/typeshift-pgbouncer-$PORT}

log() { echo "pgbouncer.sh: $*" >&2; }

if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
	log "installing pgbouncer"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq pgbouncer >&2
fi

mkdir -p "$DIR"
# The roles of .ci/postgres.sh, with their passwords in clear text: PgBouncer
# answers the client's SCRAM exchange and logs in to the server with them.
: >"$DIR/userlist.txt"
for role in typeshift typeshift_other typeshift_bypass typeshift_super; do
	printf '"%s" "%s"\n' "$role" "$PASSWORD" >>"$DIR/userlist.txt"
done
cat >"$DIR/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$PGPORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $DIR/userlist.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 6
reserve_pool_size = 2
reserve_pool_timeout = 1
max_user_connections = 40
server_idle_timeout = 5
autodb_idle_timeout = 60
server_reset_query =
ignore_startup_parameters = extra_float_digits
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
INI
chown -R postgres:postgres "$DIR"
chmod 600 "$DIR/userlist.txt"

if ! (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
	log "starting pgbouncer on 127.0.0.1:$PORT"
	runuser -u postgres -- /usr/sbin/pgbouncer -d "$DIR/pgbouncer.ini" >&2
	for _ in $(seq 1 30); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
		sleep 0.2
	done
fi
(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null || { log "pgbouncer did not come up (see $DIR/pgbouncer.log)"; exit 1; }

# The URL of the test database through the pooler: the same database as
# TYPESHIFT_TEST_DATABASE_URL, with pgx's statement mode that needs no
# prepared statement kept across transactions (PgBouncer 1.18 keeps none).
DATABASE=${TYPESHIFT_PG_DATABASE:-typeshift}
log "ready: PgBouncer 1.18, transaction pooling, on 127.0.0.1:$PORT"
echo "export TYPESHIFT_TEST_POOLER_URL='postgres://typeshift:$PASSWORD@127.0.0.1:$PORT/$DATABASE?sslmode=disable&default_query_exec_mode=exec'"
