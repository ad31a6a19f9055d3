#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-fixtures.sh: fixture tests of the scripts that read test and bench
# output, no kernel needed. Each fixture in scripts/tests/ is run through its script
# and compared with its NAME.expected (format: scripts/fixtures.sh).
#   kunit/NAME.json    kunit-count.py [options in NAME.args] NAME.json
#   tap/NAME.tap       tap-count.py --own pid/ [--known NAME.known] NAME.tap
#   summary/NAME.steps summary.sh on one "STEP: COUNTS" per line ("STEP:"
#                      an empty .counts file, "STEP" none); the first line
#                      of its output (package version) is left out
#   bench/NAME.raw     bench-table.py NAME.raw (bench-system.sh's raw lines)
#   clients/NAME.results  clients-verdict.sh on the two guests' results
#                      that NAME.results describes, a line each: "KERNEL
#                      ok|fail NAME" (a TAP line), "KERNEL log NAME TEXT"
#                      (a line of NAME/log), "KERNEL compare NAME FILE
#                      TEXT" (a line of NAME/compare/FILE), "KERNEL
#                      console TEXT"; the scenarios are those named
#   patches/NAME.patch commit_patches (lib.sh) applies it on an empty
#                      commit of a scratch repository, git format-patch
#                      exports that commit again: prints the message kept
#                      and the difference of the export from NAME.patch
# A fixture names its rule in a "# rule:" line (JSON: "comment"). Prints
# "ok"/"not ok" per fixture and a diff for each that differs, records the
# step scripts-selftest and exits 1 on any difference.
#   UPDATE=1   write every NAME.expected from the output (review the diff)
#   KUNIT_COUNT=, TAP_COUNT=, SUMMARY=, BENCH_TABLE=, CLIENTS_VERDICT=
#              other copies of the
#              scripts to test
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fixtures.sh"

tests=$REPO/scripts/tests
KUNIT_COUNT=$(realpath "${KUNIT_COUNT:-$REPO/scripts/kunit-count.py}")
TAP_COUNT=$(realpath "${TAP_COUNT:-$REPO/scripts/tap-count.py}")
SUMMARY=$(realpath "${SUMMARY:-$REPO/scripts/summary.sh}")
BENCH_TABLE=$(realpath "${BENCH_TABLE:-$REPO/scripts/bench-table.py}")
CLIENTS_VERDICT=$(realpath "${CLIENTS_VERDICT:-$REPO/scripts/clients-verdict.sh}")

# summary STEPS: summary.sh on the steps and counts of the file STEPS, in
# a work directory of its own.
summary() {
	local line step steps=() nums work=$FIXTURE_TMP/work
	rm -rf "$work"
	mkdir -p "$work/results"
	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		step=${line%%:*}
		steps+=("$step")
		[[ $line == *:* ]] || continue
		read -r -a nums <<<"${line#*:}"
		if [ "${#nums[@]}" -gt 0 ]; then echo "${nums[*]}"; fi > "$work/results/$step.counts"
	done < "$1"
	# PKG: any installed package will do for the version in the first line.
	WORK=$work PKG=dpkg "$SUMMARY" "${steps[@]}" | sed 1d
}

# clients RESULTS: clients-verdict.sh on the guests' results that the
# file RESULTS describes, built in a work directory of its own.
clients() {
	local work=$FIXTURE_TMP/clients k what name rest n=0 names=()
	rm -rf "$work"
	mkdir -p "$work/v-pristine" "$work/v-series"
	while read -r k what name rest; do
		[[ $k =~ ^(#|$) ]] && continue
		mkdir -p "$work/v-$k/$name/compare"
		case $what in
		ok|fail)
			n=$((n + 1))
			if [ "$what" = ok ]; then echo "ok $n $name"; else echo "not ok $n $name # failed"; fi \
				>> "$work/v-$k/tap.txt"
			[[ " ${names[*]} " == *" $name "* ]] || names+=("$name") ;;
		log)	echo "$rest" >> "$work/v-$k/$name/log" ;;
		compare) echo "${rest#* }" >> "$work/v-$k/$name/compare/${rest%% *}" ;;
		console) echo "$name $rest" >> "$work/v-$k/console" ;;
		esac
	done < "$1"
	(cd "$work" && "$CLIENTS_VERDICT" v "${names[@]}")
}

# patches PATCH: the round trip of series/ (make tree, then make series)
# for one patch, in a scratch repository.
patches() {
	local repo=$FIXTURE_TMP/repo commit
	rm -rf "$repo"
	git init -q "$repo"
	# An identity of the scratch repository's own: the output must not
	# depend on whether the machine has one (a fresh one has none).
	git -C "$repo" config user.name fixture
	git -C "$repo" config user.email fixture@example.org
	git -C "$repo" commit -q --allow-empty -m base
	commit=$(TREE=$repo commit_patches --exact HEAD "$1") || return 1
	git -C "$repo" log -1 --format=%B "$commit"
	echo "--- export against $1"
	git -C "$repo" format-patch -1 --zero-commit --no-signature -N --stdout "$commit" |
		diff "$1" - && echo identical
}

# run KIND NAME: fixture NAME through its script (in the fixture's directory).
run() {
	local kind=$1 name=$2 args=()
	case $kind in
	kunit)
		[ ! -f "$name.args" ] || read -r -a args < "$name.args"
		python3 "$KUNIT_COUNT" "${args[@]}" "$name.json" ;;
	tap)
		args=(--own pid/)
		[ ! -f "$name.known" ] || args+=(--known "$name.known")
		python3 "$TAP_COUNT" "${args[@]}" "$name.tap" ;;
	summary)
		summary "$name.steps" ;;
	bench)
		python3 "$BENCH_TABLE" "$name.raw" ;;
	clients)
		clients "$name.results" ;;
	patches)
		patches "$name.patch" ;;
	esac
}

fixtures=()
for f in "$tests"/kunit/*.json "$tests"/tap/*.tap "$tests"/summary/*.steps \
		"$tests"/bench/*.raw "$tests"/clients/*.results "$tests"/patches/*.patch; do
	[ ! -e "$f" ] || fixtures+=("$f")
done
echo "1..${#fixtures[@]}"
for f in "${fixtures[@]}"; do
	dir=$(dirname "$f") file=$(basename "$f")
	kind=$(basename "$dir") name=${file%.*}
	rule=$(sed -n -e 's/^# rule: //p' -e 's/^ *"comment": "\(.*\)",$/\1/p' "$f" | head -1)
	fixture_check "$kind/$name" "$rule" "$dir" "$name" run "$kind" "$name"
done
fixtures_done
record scripts-selftest "$fixtures_ok" "$fixtures_bad" 0
[ "$fixtures_bad" -eq 0 ]
