#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apply.sh DIR [FROM [TO]]: apply series/ in order on top of DIR's HEAD,
# only patches FROM..TO (1-based, inclusive) when given. commit_patches
# (lib.sh) makes the commits, as git am would, without touching DIR, and
# refuses by name a patch that does not apply or needs an offset; only
# when all of them applied does DIR move to the last one (a fast-forward
# of its checkout). On failure DIR is left as it was.
. "$(dirname "$0")/lib.sh"

dir=$1
mapfile -t patches < <(series_patches)
n=${#patches[@]}
from=${2:-1} to=${3:-$n}
files=()
for ((i = from; i <= to && i <= n; i++)); do
	f=$REPO/series/${patches[i - 1]}
	[ -f "$f" ] || die "series/series names ${patches[i - 1]}, which is not in series/"
	files+=("$f")
done
if [ ${#files[@]} -eq 0 ]; then
	info "series/ is empty: nothing to apply"
	exit 0
fi
head=$(git -C "$dir" rev-parse -q --verify HEAD) || die "$dir has no HEAD to apply series/ on"
new=$(commit_patches --exact "$head" "${files[@]}") ||
	die "patches $from-$to of series/ not applied: $dir is left at $(git -C "$dir" log -1 --format='%h %s')"
git_identity
git -C "$dir" merge -q --ff-only "$new" || die "cannot move $dir to the applied patches"
i=$((from - 1))
git -C "$dir" log --reverse --format=%s "$head..$new" | while IFS= read -r subject; do
	i=$((i + 1))
	info "applied $i/$n $subject"
done
