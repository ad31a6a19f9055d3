#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# summary.sh STEP...: one line per step from $RESULTS/STEP.counts, then the
# totals as the plain line "N passed, N failed, N skipped". A step that
# left no counts (it never got to run its tests) counts as one failure.
# A .counts file is "passed failed skipped", or for a KUnit step
# "passed failed skipped own_passed own_failed own_skipped" with the counts
# of the series' own suites (kunit-count.py --own) after the totals: its
# line then shows them and upstream's (the rest, which includes a kernel
# bug report's failure), and a line before the totals adds up the own ones.
# Only the totals line has commas: "N passed, N failed, N skipped".
# Exits 1 when anything failed or nothing ran.
. "$(dirname "$0")/lib.sh"

tp=0 tf=0 ts=0
op=0 of=0 os=0 own_steps=0 kunit_steps=0
say "summary: $PKG $(pkg_version), $(series_patches | wc -l) patches from series/"
for step in "$@"; do
	n=()
	[ ! -f "$RESULTS/$step.counts" ] || read -r -a n < "$RESULTS/$step.counts" || true
	[ "${#n[@]}" -ge 3 ] || n=(0 1 0)
	p=${n[0]} f=${n[1]} s=${n[2]} own=
	if [ "${#n[@]}" -ge 6 ]; then
		own=$(printf "  (series' own suites: %d passed %d failed %d skipped; upstream: %d passed %d failed %d skipped)" \
			"${n[3]}" "${n[4]}" "${n[5]}" $((p - n[3])) $((f - n[4])) $((s - n[5])))
		op=$((op + n[3])) of=$((of + n[4])) os=$((os + n[5])) own_steps=$((own_steps + 1))
	fi
	[[ $step != kunit-* && -z $own ]] || kunit_steps=$((kunit_steps + 1))
	printf '    %-20s %5d passed %5d failed %5d skipped%s\n' "$step" "$p" "$f" "$s" "$own"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
done
if [ "$own_steps" -gt 0 ]; then
	printf '    %-20s %5d passed %5d failed %5d skipped  (in %d of %d KUnit steps)\n' \
		"series' own suites" "$op" "$of" "$os" "$own_steps" "$kunit_steps"
fi
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ] && [ "$tp" -gt 0 ]
