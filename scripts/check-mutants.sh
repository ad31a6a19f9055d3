#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-mutants.sh [GLOB]: every mutant in kunit/mutants/ must be killed.
# A mutant is a patch against base + series/ that undoes one safety
# measure of the series' kernel code; its header says what it undoes
# ("Mutant:") and which tests are meant to catch it ("Killed-by:"). Each
# mutant in turn is applied to the test tree ($CHECK, base + series/),
# which is then built in $BUILD/default, the default variant's build
# directory (a mutant touches one .c file: each build is incremental,
# and the one after the last mutant recompiles that file only), and run:
#   - the KUnit suites of the default variant (scripts/kunit.sh, as
#     'make kunit' runs them, with -smp 2);
#   - for a mutant of kernel/pidmap.c, also the userspace harness
#     tools/testing/pidmap ('make check' there).
# A mutant that fails neither survives, and the run fails naming it. The
# table of what killed each mutant is $RESULTS/mutants.txt. The test tree
# goes back to base + series/ after each mutant, and whatever stops the
# run.
#   GLOB   only the mutants whose file name matches (e.g. '*pidmap*')
. "$(dirname "$0")/lib.sh"

glob=${1:-*}
mapfile -t mutants < <(find "$REPO/kunit/mutants" -name "$glob.patch" | sort)
[ "${#mutants[@]}" -gt 0 ] || die "no mutant matches kunit/mutants/$glob.patch"

"$REPO/scripts/prepare-test-tree.sh"
commit=$(git -C "$CHECK" rev-parse HEAD)
restore() { git -C "$CHECK" checkout -q -f "$commit" -- . 2>/dev/null || true; }
trap restore EXIT
table=$RESULTS/mutants.txt
mkdir -p "$RESULTS"
: > "$table"
survivors=()
i=0
for m in "${mutants[@]}"; do
	i=$((i + 1))
	name=$(basename "$m" .patch)
	expect=$(sed -n 's/^Killed-by: *//p' "$m" | head -1)
	restore
	say "mutant $i/${#mutants[@]}: $name: $(sed -n 's/^Subject: *//p' "$m" | head -1)"
	git -C "$CHECK" apply --check "$m" 2> "$RESULTS/mutant-$name.apply" ||
		die "mutant $name does not apply to base + series/: $(head -3 "$RESULTS/mutant-$name.apply" | tr '\n' ' ')"
	git -C "$CHECK" apply "$m"
	files=$(git -C "$CHECK" diff --name-only | tr '\n' ' ')
	killed=
	if "$REPO/scripts/kunit.sh" default > "$RESULTS/mutant-$name.log" 2>&1; then
		info "KUnit: every case passed"
	else
		failed=$(sed -n 's/^ *FAILED: \(.*\) ([A-Z]*)$/\1/p' "$RESULTS/mutant-$name.log" | sort -u |
			paste -sd ';')
		if [ -z "$failed" ] && grep -q "kernel bug report" "$RESULTS/mutant-$name.log"; then
			failed="a kernel bug report in the log"
		fi
		if [ -z "$failed" ]; then
			tail -5 "$RESULTS/mutant-$name.log" | sed 's/^/    /' >&2
			die "mutant $name: no KUnit result (did it build? see $RESULTS/mutant-$name.log): a mutant must compile and boot"
		fi
		killed="KUnit: $failed"
		info "killed by KUnit: $failed"
	fi
	case " $files " in
	*" kernel/pidmap.c "*)
		if make -C "$CHECK/tools/testing/pidmap" check > "$RESULTS/mutant-$name.harness" 2>&1; then
			info "harness: every check passed"
		else
			h=$(sed -n 's/^not ok [0-9]* - //p' "$RESULTS/mutant-$name.harness" | tr '\n' ';')
			killed="${killed:+$killed; }harness: ${h:-failed}"
			info "killed by the harness: ${h:-failed}"
		fi
		make -s -C "$CHECK/tools/testing/pidmap" clean > /dev/null 2>&1 || true ;;
	esac
	if [ -z "$killed" ]; then
		survivors+=("$name")
		printf '%-36s SURVIVED (meant to be killed by %s)\n' "$name" "$expect" >> "$table"
		printf '%s    SURVIVED: %s (meant to be killed by %s)%s\n' "$R" "$name" "$expect" "$N"
	else
		printf '%-36s %s\n' "$name" "$killed" >> "$table"
	fi
done
restore

say "mutants: $(( ${#mutants[@]} - ${#survivors[@]} )) of ${#mutants[@]} killed ($table)"
sed 's/^/    /' "$table"
record mutants "$(( ${#mutants[@]} - ${#survivors[@]} ))" "${#survivors[@]}" 0
[ "${#survivors[@]}" -eq 0 ] || die "${#survivors[@]} mutant(s) survived: ${survivors[*]}"
