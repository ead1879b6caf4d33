#!/usr/bin/env bash
# Follows docs/getting-started.md in a new module pointed at this checkout: it writes the page's files and runs
# the page's commands, in the page's order, so that the page cannot drift from the tool. Blocks are marked on the
# line before their fence: <!-- file: path --> (written), <!-- run --> (run), <!-- run: local --> (run, with
# ../typeshift meaning this checkout), <!-- run: postgres --> (run when TYPESHIFT_TEST_DATABASE_URL is set, with
# TYPESHIFT_DATABASE_URL naming a database of its own) and <!-- run: published --> (left out: it needs a released module).
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
page="$checkout/docs/getting-started.md"
work="$(mktemp -d)"
db=""
cleanup() {
	if [ -n "$db" ]; then psql "$TYPESHIFT_TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

# The page's blocks, as one script of steps.
awk -v checkout="$checkout" '
	/^<!-- (run|file)/ { marker = $0; next }
	marker != "" && !inblock && /^```/ { inblock = 1; body = ""; next }
	inblock && /^```/ {
		inblock = 0
		if (marker ~ /^<!-- file: /) {
			path = marker; sub(/^<!-- file: /, "", path); sub(/ -->$/, "", path)
			printf "echo \"+ write %s\"\nmkdir -p \"$(dirname %s)\"\ncat > %s <<'\''TYPESHIFT_EOF'\''\n%sTYPESHIFT_EOF\n", path, path, path, body
		} else if (marker == "<!-- run -->") {
			printf "%s", body
		} else if (marker == "<!-- run: local -->") {
			gsub(/\.\.\/typeshift/, checkout, body)
			printf "%s", body
		} else if (marker == "<!-- run: postgres -->") {
			printf "if [ -n \"${GETTING_STARTED_DATABASE_URL:-}\" ]; then\nexport TYPESHIFT_DATABASE_URL=\"$GETTING_STARTED_DATABASE_URL\"\n%sfi\n", body
		}
		marker = ""
		next
	}
	inblock { body = body $0 "\n" }
' "$page" > "$work/steps.sh"

if [ -n "${TYPESHIFT_TEST_DATABASE_URL:-}" ]; then
	db="typeshift_getting_started_$$"
	psql "$TYPESHIFT_TEST_DATABASE_URL" -qc "CREATE DATABASE $db"
	# The same server and role, the new database.
	export GETTING_STARTED_DATABASE_URL="$(printf '%s' "$TYPESHIFT_TEST_DATABASE_URL" | sed -E "s#/[^/?]+(\?|$)#/$db\1#")"
else
	echo "TYPESHIFT_TEST_DATABASE_URL is not set: the Postgres steps are skipped"
fi

mkdir "$work/hello"
cd "$work/hello"
unset GOFLAGS TYPESHIFT_DATABASE_URL
export GOWORK=off
bash -euo pipefail -x "$work/steps.sh" 2>&1 | tee "$work/out"

# What the page says the program prints.
runs=1
if [ -n "$db" ]; then runs=2; fi
fail() { echo "getting-started: $*"; exit 1; }
[ "$(grep -c '^Noted\.$' "$work/out")" = "$runs" ] || fail "the program did not answer Noted. $runs time(s)"
[ "$(grep -c '^called add_note$' "$work/out")" = "$runs" ] || fail "the program did not call add_note"
! grep -q '^called delete_note$' "$work/out" || fail "the agent offered delete_note, which it excludes"
[ -f typeshift_gen.go ] && [ -f notes/typeshift_gen.go ] || fail "the generated files are missing"
if [ -n "$db" ]; then
	grep -q '^applied River migration' "$work/out" || fail "migrate did not create River's tables, as the page says it does"
fi
echo "getting-started: the page's steps work"
