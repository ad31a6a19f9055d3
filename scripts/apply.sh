#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apply.sh DIR [FROM [TO]]: apply series/ in order on top of DIR's HEAD
# with git am; only patches FROM..TO (1-based, inclusive) when given.
# Each patch is first dry-run with GNU patch at --fuzz=0 so that a hunk
# that needs fuzz or lands at an offset is refused by name. On failure
# DIR is left at the last patch that applied, with no git am in progress.
. "$(dirname "$0")/lib.sh"

dir=$1
cd "$dir"
git_identity
mapfile -t patches < <(series_patches)
n=${#patches[@]} i=0
from=${2:-1} to=${3:-$n}
for p in "${patches[@]}"; do
	i=$((i + 1))
	[ "$i" -ge "$from" ] && [ "$i" -le "$to" ] || continue
	f=$REPO/series/$p
	[ -f "$f" ] || die "series/series names $p, which is not in series/"
	if ! out=$(patch -p1 --batch --dry-run --fuzz=0 -i "$f" 2>&1); then
		printf '%s\n' "$out" | grep -E 'FAILED|checking|malformed|Only garbage|can.t find' >&2 || true
		die "patch $i/$n series/$p does not apply (hunks above); tree left at $(git log -1 --format='%h %s')"
	fi
	if printf '%s\n' "$out" | grep -qE 'offset|fuzz'; then
		bad=$(printf '%s\n' "$out" | grep -E 'checking|offset|fuzz')
		printf '%s\n' "$bad" >&2
		die "patch $i/$n series/$p applies only with offset or fuzz (above): regenerate it with 'make series'"
	fi
	if ! git am -q --no-3way "$f"; then
		git am --abort || true
		die "git am refused patch $i/$n series/$p; tree left at $(git log -1 --format='%h %s')"
	fi
	info "applied $i/$n $p"
done
[ "$n" -gt 0 ] || info "series/ is empty: nothing to apply"
