#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the test tree's checkpatch.pl --strict on every patch in series/:
# one result per patch; any error, warning or check fails it. One
# checkpatch.pl per CPU (it takes seconds on a large patch); the results
# are reported in series order.
. "$(dirname "$0")/lib.sh"

say "checkpatch --strict on series/"
mapfile -t patches < <(series_patches)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in "${!patches[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
	(
		cd "$CHECK" && ./scripts/checkpatch.pl --strict --quiet --showfile \
			"$REPO/series/${patches[i]}" > "$tmp/$i" 2>&1
		echo $? > "$tmp/$i.rc"
	) &
done
wait
p=0 f=0
for i in "${!patches[@]}"; do
	if [ "$(cat "$tmp/$i.rc" 2>/dev/null)" = 0 ] && [ ! -s "$tmp/$i" ]; then
		info "ok   ${patches[i]}"
		p=$((p + 1))
	else
		info "FAIL ${patches[i]}"
		sed 's/^/        /' "$tmp/$i" 2>/dev/null || true
		f=$((f + 1))
	fi
done
record checkpatch $p $f 0
[ $((p + f)) -gt 0 ] || info "no patches to check"
[ "$f" -eq 0 ] || die "checkpatch: $f of $((p + f)) patches have findings (above)"
