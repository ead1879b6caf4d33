#!/usr/bin/env bash
# Prepares a local PostgreSQL 15 for Typeshift's storage tests and prints the
# variable that points the tests at it:
#
#	eval "$(bash .ci/postgres.sh)"
#	go test ./storage/...
#
# Run as root on Debian 12. The script is idempotent: it installs PostgreSQL 15
# only when missing, starts the cluster only when stopped, and creates the roles
# and the database only when absent. Everything it says goes to stderr except
# the final export line.
#
# Roles:
#   typeshift         LOGIN, CREATEDB, not a superuser: owns the test database,
#                     the per-test schemas and their tables.
#   typeshift_tenant  NOLOGIN, no privileges of its own: the tenancy test grants
#                     it access to one test schema and switches to it with
#                     SET ROLE, to show that row-level security holds for a
#                     role that does not own the tables. typeshift is a member.
#   typeshift_other   LOGIN, no privileges of its own, same password: another
#                     tenant's application session on the same database, for
#                     the tests that play the adversary (its own LISTEN and
#                     pg_notify on the store's channel). Tests grant it what an
#                     application role has on their schema.
#   typeshift_bypass  LOGIN BYPASSRLS, same password as typeshift, nothing else:
#                     the tests connect as it to show that the Postgres store
#                     and verify-store refuse a role row-level security does
#                     not bind. It is a member of typeshift_tenant, to show
#                     that a pool whose connections SET ROLE to a role that
#                     RLS binds is accepted.
set -euo pipefail

PGVERSION=15
CLUSTER=main
PORT=5432
ROLE=typeshift
PASSWORD=${TYPESHIFT_PG_PASSWORD:-typeshift}
DATABASE=typeshift
TENANT_ROLE=typeshift_tenant
OTHER_ROLE=typeshift_other
BYPASS_ROLE=typeshift_bypass

log() { echo "postgres.sh: $*" >&2; }

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -d "/usr/lib/postgresql/$PGVERSION" ]; then
	log "installing postgresql-$PGVERSION"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq "postgresql-$PGVERSION" >&2
fi

if ! pg_lsclusters -h | awk -v v="$PGVERSION" -v c="$CLUSTER" '$1==v && $2==c {found=1} END {exit !found}'; then
	log "creating cluster $PGVERSION/$CLUSTER"
	pg_createcluster "$PGVERSION" "$CLUSTER" --port "$PORT" >&2
fi

if ! pg_lsclusters -h | awk -v v="$PGVERSION" -v c="$CLUSTER" '$1==v && $2==c && $4=="online" {found=1} END {exit !found}'; then
	log "starting cluster $PGVERSION/$CLUSTER"
	pg_ctlcluster "$PGVERSION" "$CLUSTER" start >&2
fi

# Wait until the server accepts connections (bounded: 30 tries, 1s apart).
for _ in $(seq 1 30); do
	if runuser -u postgres -- pg_isready -q -p "$PORT"; then break; fi
	sleep 1
done
runuser -u postgres -- pg_isready -q -p "$PORT" || { log "server did not come up"; exit 1; }

psql_admin() { runuser -u postgres -- psql -p "$PORT" -X -q -v ON_ERROR_STOP=1 "$@" >&2; }

# Passwords are passed as psql variables so they are quoted by psql, not by the shell.
psql_admin -v role="$ROLE" -v pw="$PASSWORD" -v tenant="$TENANT_ROLE" -v bypass="$BYPASS_ROLE" -v other="$OTHER_ROLE" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN CREATEDB NOSUPERUSER NOCREATEROLE PASSWORD %L', :'role', :'pw')
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('ALTER ROLE %I LOGIN CREATEDB NOSUPERUSER NOBYPASSRLS PASSWORD %L', :'role', :'pw') \gexec
-- A test database need not survive a power cut: without waiting for each
-- commit's flush, schema set-up and the suites run several times faster.
-- (A connection may still ask for synchronous_commit=on, as the benchmarks
-- do for their durable figures.)
SELECT format('ALTER ROLE %I SET synchronous_commit = off', :'role') \gexec
SELECT format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOBYPASSRLS', :'tenant')
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'tenant') \gexec
SELECT format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD %L', :'other', :'pw')
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'other') \gexec
SELECT format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD %L', :'other', :'pw') \gexec
SELECT format('GRANT %I TO %I', :'tenant', :'role')
WHERE NOT EXISTS (
	SELECT 1 FROM pg_auth_members m
	JOIN pg_roles r ON r.oid = m.roleid JOIN pg_roles u ON u.oid = m.member
	WHERE r.rolname = :'tenant' AND u.rolname = :'role') \gexec
SELECT format('CREATE ROLE %I LOGIN BYPASSRLS NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD %L', :'bypass', :'pw')
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'bypass') \gexec
SELECT format('ALTER ROLE %I LOGIN BYPASSRLS NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD %L', :'bypass', :'pw') \gexec
SELECT format('GRANT %I TO %I', :'tenant', :'bypass')
WHERE NOT EXISTS (
	SELECT 1 FROM pg_auth_members m
	JOIN pg_roles r ON r.oid = m.roleid JOIN pg_roles u ON u.oid = m.member
	WHERE r.rolname = :'tenant' AND u.rolname = :'bypass') \gexec
SQL

psql_admin -v role="$ROLE" -v db="$DATABASE" <<'SQL'
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'role')
WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec
SQL

log "ready: database $DATABASE on 127.0.0.1:$PORT"
echo "export TYPESHIFT_TEST_DATABASE_URL='postgres://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DATABASE?sslmode=disable'"
