#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-prefixes.sh: every prefix of series/ (patch 1, 1-2, ... 1-N) builds
# the x86_64 KUnit kernel (default variant) and passes the suites that
# exist at that point. The prefixes are applied one patch at a time in
# their own tree, $WORK/prefix, and built in one build directory, so each
# build is incremental. Each prefix runs the suites its own .kunitconfig
# files enable (a patch that adds a suite adds it there). A prefix whose
# last patch changes tools/testing/selftests/$KSELFTEST_OWN/, once its
# Makefile lists programs, also boots that kernel in the kselftest guest
# and runs the programs the directory has at that point (kselftest.sh,
# T='$KSELFTEST_OWN/*'). Ends with a table and the summary line.
. "$(dirname "$0")/lib.sh"

dir=$WORK/prefix
out=$BUILD/prefix
lock "$dir" "$out"
tag=$(base_tag)
mapfile -t patches < <(series_patches)
n=${#patches[@]}
[ "$n" -gt 0 ] || die "series/ is empty"
start=$(date +%s)
mkdir -p "$RESULTS"
rm -f "$RESULTS"/prefix-*.counts "$RESULTS"/kunit-prefix-*.counts

worktree_ready "$dir" "$tag"
git -C "$dir" am --abort >/dev/null 2>&1 || true
git -C "$dir" checkout -q -f --detach "$tag"
git -C "$dir" clean -q -fdx

steps=()
for ((k = 1; k <= n; k++)); do
	step=$(printf 'prefix-%02d' "$k")
	steps+=("$step")
	say "prefix 1-$k: ${patches[k - 1]}"
	"$REPO/scripts/apply.sh" "$dir" "$k" "$k" || {
		record "$step" 0 1 0
		break
	}
	SRC=$dir OUT=$out NAME=$step "$REPO/scripts/kunit.sh" default || true
	if [ -n "$(git -C "$dir" diff --name-only HEAD~1 HEAD -- "tools/testing/selftests/$KSELFTEST_OWN/")" ] &&
	   grep -q '^TEST_GEN_PROGS' "$dir/tools/testing/selftests/$KSELFTEST_OWN/Makefile"; then
		steps+=("kselftest-$step")
		SRC=$dir OUT=$out NAME=$step T="$KSELFTEST_OWN/*" "$REPO/scripts/kselftest.sh" default || true
	fi
done

say "prefixes: x86_64 KUnit kernel (default variant) per prefix; selftests: the kselftest guest's counts where the prefix changes them"
printf '    %-8s %-52s %7s %7s %7s %10s\n' prefix "last patch" passed failed skipped selftests
for ((k = 1; k <= n; k++)); do
	step=$(printf 'prefix-%02d' "$k")
	if [ -f "$RESULTS/kunit-$step.counts" ]; then
		# A KUnit .counts may add the own suites' counts: not per prefix.
		read -r p f s _ < "$RESULTS/kunit-$step.counts"
		record "$step" "$p" "$f" "$s"
	elif [ ! -f "$RESULTS/$step.counts" ]; then
		record "$step" 0 1 0
	fi
	read -r p f s < "$RESULTS/$step.counts"
	ks=-
	if [[ " ${steps[*]} " == *" kselftest-$step "* ]]; then
		ks="none"
		if [ -f "$RESULTS/kselftest-$step.counts" ]; then
			read -r kp kf _ < "$RESULTS/kselftest-$step.counts"
			ks="$kp ok, $kf not"
		fi
	fi
	printf '    %-8s %-52s %7d %7d %7d %10s\n' "1-$k" "${patches[k - 1]:0:52}" "$p" "$f" "$s" "$ks"
done
info "wall time $(( $(date +%s) - start )) s; logs in $RESULTS/kunit-prefix-*.log"
exec "$REPO/scripts/summary.sh" "${steps[@]}"
