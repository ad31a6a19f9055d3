#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the test tree's checkpatch.pl --strict on every patch in series/:
# one result per patch; any error, warning or check fails it.
. "$(dirname "$0")/lib.sh"

say "checkpatch --strict on series/"
p=0 f=0
while read -r patch; do
	if out=$(cd "$CHECK" && ./scripts/checkpatch.pl --strict --quiet --showfile \
			"$REPO/series/$patch" 2>&1) && [ -z "$out" ]; then
		info "ok   $patch"
		p=$((p + 1))
	else
		info "FAIL $patch"
		printf '%s\n' "$out" | sed 's/^/        /'
		f=$((f + 1))
	fi
done < <(series_patches)
record checkpatch $p $f 0
[ $((p + f)) -gt 0 ] || info "no patches to check"
[ "$f" -eq 0 ] || die "checkpatch: $f of $((p + f)) patches have findings (above)"
