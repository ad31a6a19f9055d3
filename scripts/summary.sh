#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# summary.sh STEP...: one line per step from $RESULTS/STEP.counts, then the
# totals as the plain line "N passed, N failed, N skipped". A step that
# left no counts (it never got to run its tests) counts as one failure.
# Exits 1 when anything failed or nothing ran.
. "$(dirname "$0")/lib.sh"

tp=0 tf=0 ts=0
say "summary: $PKG $(pkg_version), $(series_patches | wc -l) patches from series/"
for step in "$@"; do
	if [ -f "$RESULTS/$step.counts" ]; then
		read -r p f s < "$RESULTS/$step.counts"
	else
		p=0 f=1 s=0
	fi
	printf '    %-20s %5d passed %5d failed %5d skipped\n' "$step" "$p" "$f" "$s"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
done
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ] && [ "$tp" -gt 0 ]
