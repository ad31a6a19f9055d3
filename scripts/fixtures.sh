# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Fixture tests of the scripts that read test and bench output
# (test-fixtures.sh). Sourced after lib.sh, not run. A fixture's
# NAME.expected holds its script's stdout, a line "--- stderr", its stderr
# and a line "--- exit N".
#   UPDATE=1   write every NAME.expected from the output (review the diff)

FIXTURE_TMP=$(mktemp -d)
trap 'rm -rf "$FIXTURE_TMP"' EXIT
fixtures_ok=0 fixtures_bad=0

# fixture_check ID RULE DIR NAME COMMAND...: run COMMAND in DIR, compare
# its output with DIR/NAME.expected and print "ok"/"not ok N - ID: RULE",
# the latter with the diff.
fixture_check() {
	local id=$1 rule=$2 dir=$3 name=$4 rc=0 n
	shift 4
	(cd "$dir" && "$@") > "$FIXTURE_TMP/out" 2> "$FIXTURE_TMP/err" || rc=$?
	{ cat "$FIXTURE_TMP/out"; echo "--- stderr"; cat "$FIXTURE_TMP/err"; echo "--- exit $rc"; } \
		> "$FIXTURE_TMP/actual"
	[ -z "${UPDATE:-}" ] || cp "$FIXTURE_TMP/actual" "$dir/$name.expected"
	n=$((fixtures_ok + fixtures_bad + 1))
	if diff -u "$dir/$name.expected" "$FIXTURE_TMP/actual" > "$FIXTURE_TMP/diff" 2>&1; then
		fixtures_ok=$((fixtures_ok + 1))
		echo "ok $n - $id: $rule"
	else
		fixtures_bad=$((fixtures_bad + 1))
		echo "not ok $n - $id: $rule"
		sed 's/^/#   /' "$FIXTURE_TMP/diff"
	fi
}

# fixtures_done: the closing line. No fixture at all counts as a failure:
# the run is good when fixtures_bad is 0 after it.
fixtures_done() {
	[ $((fixtures_ok + fixtures_bad)) -gt 0 ] ||
		{ fixtures_bad=1; echo "not ok - no fixture found"; }
	echo "# fixtures: $fixtures_ok ok, $fixtures_bad not ok"
}
