#!/usr/bin/env bash
# Follows docs/getting-started.md in a new module pointed at this checkout: it writes the page's files and runs
# the page's commands, in the page's order, so that the page cannot drift from the tool. Blocks are marked on the
# line before their fence: <!-- file: path --> (written), <!-- run --> (run), <!-- run: local --> (run, with
# ../typeshift meaning this checkout), <!-- run: postgres --> (run when TYPESHIFT_TEST_DATABASE_URL is set, with
# TYPESHIFT_DATABASE_URL naming a database of its own), <!-- run: serve --> (started in the background, stopped
# when the script ends, and waited for until it answers) and <!-- run: published --> (left out: it needs a released
# module). A server's address in the pages, 127.0.0.1:8080, becomes a free port of this machine's.
#
# Pages that go on in the module getting started makes are followed after it, in the order given:
#
#	bash .ci/getting-started.sh docs/serving.md
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
pages=("$checkout/docs/getting-started.md")
for extra in "$@"; do pages+=("$(cd "$(dirname "$extra")" && pwd)/$(basename "$extra")"); done
work="$(mktemp -d)"
db=""
cleanup() {
	if [ -f "$work/server.pid" ]; then kill "$(cat "$work/server.pid")" 2>/dev/null || true; fi
	if [ -n "$db" ]; then psql "$TYPESHIFT_TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

# A free port for a server the pages start: a port nothing answers on.
port=""
for _ in $(seq 1 50); do
	candidate=$((20000 + RANDOM % 20000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
done
[ -n "$port" ] || { echo "getting-started: no free port"; exit 1; }

# The pages' blocks, as one script of steps.
awk -v checkout="$checkout" -v work="$work" -v port="$port" '
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
		} else if (marker == "<!-- run: serve -->") {
			# The output of the server goes to a file of its own: a pipe it held open would keep tee waiting.
			sub(/[ \t]*&[ \t]*\n$/, "", body)
			printf "%s > \"%s/server.log\" 2>&1 &\necho $! > \"%s/server.pid\"\n", body, work, work
			printf "for i in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:%s/ && break; sleep 0.2; done\n", port
		} else if (marker == "<!-- run: postgres -->") {
			printf "if [ -n \"${GETTING_STARTED_DATABASE_URL:-}\" ]; then\nexport TYPESHIFT_DATABASE_URL=\"$GETTING_STARTED_DATABASE_URL\"\n%sfi\n", body
		}
		marker = ""
		next
	}
	inblock { gsub(/127\.0\.0\.1:8080/, "127.0.0.1:" port); body = body $0 "\n" }
' "${pages[@]}" > "$work/steps.sh"

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
grep -q '^model: the offline test model$' "$work/out" || fail "the program did not say it ran on the offline test model"
# Each API key selects its provider (the first set, in the page's order); the SDK reads the base URL, here an
# address nothing answers on, so the run fails after the program said which model it chose.
for env in "OPENAI_API_KEY=sk-example OPENAI_BASE_URL=http://127.0.0.1:9/v1|openai gpt-4.1-mini" \
	"ANTHROPIC_API_KEY=sk-ant-example ANTHROPIC_BASE_URL=http://127.0.0.1:9|anthropic claude-sonnet-4-5" \
	"GEMINI_API_KEY=AIza-example GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9|gemini gemini-2.5-flash" \
	"GOOGLE_API_KEY=AIza-example GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9|gemini gemini-2.5-flash" \
	"GEMINI_API_KEY=AIza-example ANTHROPIC_API_KEY=sk-ant-example ANTHROPIC_BASE_URL=http://127.0.0.1:9|anthropic claude-sonnet-4-5"; do
	vars="${env%|*}" want="${env#*|}"
	got="$(env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY $vars go run . 2>&1 || true)"
	grep -qx "model: $want" <<<"$got" || fail "with $vars the program did not choose $want: $got"
	echo "getting-started: with $vars the program chose $want"
done
if [ -n "$db" ]; then
	grep -q '^applied River migration' "$work/out" || fail "migrate did not create River's tables, as the page says it does"
fi
if [ -f "$work/server.log" ]; then
	echo "+ the server's log:"; cat "$work/server.log"
	cat "$work/server.log" >> "$work/out"
fi
for p in "${pages[@]}"; do
	case "$(basename "$p")" in
	serving.md)
		# What docs/serving.md says each step shows.
		grep -q 'DEVELOPMENT AUTHENTICATION' "$work/out" || fail "serving: the server did not warn of its development authentication"
		grep -q '"name":"Desk"' "$work/out" || fail "serving: the agent list lacks Desk"
		grep -q '"text":"Noted\.","messages"' "$work/out" || fail "serving: the first run did not answer Noted."
		grep -q '"pending":\[{"id":"approval_[^"]*","call_id":"[^"]*","tool":"delete_note","tool_id":"[^"]*","arguments":{"id":1}}\]' "$work/out" ||
			fail "serving: the second run did not wait for the approval of delete_note of note 1"
		grep -q '"text":"Deleted\.","messages"' "$work/out" || fail "serving: the approved run did not answer Deleted."
		grep -q 'takes the tenant from the X-Tenant request header' "$work/out" || fail "serving: the 401 did not name the header"
		grep -q '^event: end$' "$work/out" || fail "serving: the streamed run did not end with an end event"
		grep -q '<title>Typeshift dev UI</title>' "$work/out" || fail "serving: the dev UI did not answer"
		grep -q '"type":"RUN_FINISHED"' "$work/out" || fail "serving: the AG-UI run did not finish"
		grep -q '"type":"finish"' "$work/out" || fail "serving: the UI message stream did not finish"
		grep -q '"name":"list_notes"' "$work/out" || fail "serving: MCP's tools/list lacks list_notes"
		! grep -q '"name":"delete_note"}' "$work/out" || fail "serving: MCP served delete_note, which needs approval"
		;;
	esac
done
# What a user meets who changes a toolset and forgets to regenerate, in the module the pages made.
# 1. A field added to a tool's input: the build fails in the generated file, and the error names the fix.
echo "+ a field added to notes.AddInput without regenerating"
sed -i 's|^\tText string `json:"text" jsonschema:"minLength=1,maxLength=500"`$|&\n\t// Tags label the note.\n\tTags []string `json:"tags,omitempty"`|' notes/notes.go
grep -q 'Tags \[\]string' notes/notes.go || fail "stale: the field was not added to notes/notes.go"
if go build ./... > "$work/stale.out" 2>&1; then fail "stale: a toolset whose input struct changed builds without regenerating"; fi
cat "$work/stale.out"
grep -q '^notes/typeshift_gen.go:.*cannot use AddInput{}.*in argument to typeshift_gen_go_is_out_of_date_run_typeshift_generate' "$work/stale.out" ||
	fail "stale: the build did not fail in the generated file with the fix in the error"
vettool="$(go tool -n typeshift-vet)"
if go vet -vettool="$vettool" -fix ./... > "$work/stale.out" 2>&1; then fail "stale: go vet -fix passed a package that does not compile"; fi
grep -q 'typeshift_gen_go_is_out_of_date_run_typeshift_generate' "$work/stale.out" || fail "stale: go vet -fix did not say why it failed"
echo "getting-started: go vet -fix fails on the stale file with the compiler's error"
go tool typeshift generate ./...
go build ./... || fail "stale: the build failed after regenerating"

# 2. A stale file that still compiles (a tool's description changed): vet reports it with a command that works
# without a //go:generate line, generate -check says the same, and -fix brings it up to date, through go vet and on
# its own.
for fix in "go vet -vettool=$vettool -fix ./..." "$vettool -fix ./..."; do
	echo "+ a description changed; then $fix"
	sed -i 's|^// AddNote keeps a new note and returns it with its number\.$|// AddNote keeps a new note, and returns it with its number.|; t; s|^// AddNote keeps a new note, and returns it with its number\.$|// AddNote keeps a new note and returns it with its number.|' notes/notes.go
	go build ./... || fail "stale: the description's change does not build"
	if go vet -vettool="$vettool" ./... > "$work/stale.out" 2>&1; then fail "stale: go vet passed a stale generated file"; fi
	cat "$work/stale.out"
	grep -q 'TSH010: typeshift_gen.go is out of date: run go tool typeshift generate ./... at the module' "$work/stale.out" ||
		fail "stale: TSH010 did not name a command that works without a //go:generate line"
	if go tool typeshift generate -check ./... > "$work/stale.out" 2>&1; then fail "stale: generate -check passed a stale file"; fi
	grep -q 'is out of date: run go tool typeshift generate ./...' "$work/stale.out" || fail "stale: generate -check did not name the command"
	$fix > "$work/stale.out" 2>&1 || { cat "$work/stale.out"; fail "stale: $fix failed"; }
	cat "$work/stale.out"
	grep -q 'regenerated' "$work/stale.out" || fail "stale: $fix did not say it regenerated the file"
	go tool typeshift generate -check ./... || fail "stale: $fix left the generated file stale"
	go vet -vettool="$vettool" ./... || fail "stale: go vet fails after $fix"
	echo "getting-started: $fix regenerated the stale file"
done

echo "getting-started: the pages' steps work: ${pages[*]##*/}"
