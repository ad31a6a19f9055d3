#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bring the test tree $CHECK to base + series/. It belongs to the scripts:
# anything in it is discarded. A stamp of base and patches skips the work
# (and keeps file times, so builds stay incremental) when nothing changed.
. "$(dirname "$0")/lib.sh"
lock_work

GIT_REPO=$TREE/.git
tag=$(base_tag)
stamp=$( { git --git-dir="$GIT_REPO" rev-parse "$tag"; series_patches |
	while read -r p; do echo "$p"; cat "$REPO/series/$p" 2>/dev/null; done; } |
	sha256sum | cut -d' ' -f1)

if [ ! -d "$CHECK" ]; then
	say "creating test tree $CHECK"
	git --git-dir="$GIT_REPO" worktree add -q --detach "$CHECK" "$tag"
elif [ "$(cat "$WORK/check.stamp" 2>/dev/null)" = "$stamp $(git -C "$CHECK" rev-parse HEAD)" ] &&
     [ -z "$(git -C "$CHECK" status --porcelain)" ]; then
	info "test tree $CHECK is base + series/ ($(series_patches | wc -l) patches), unchanged"
	exit 0
fi

say "applying series/ to $tag in $CHECK"
rm -f "$WORK/check.stamp"
git -C "$CHECK" am --abort >/dev/null 2>&1 || true
git -C "$CHECK" checkout -q -f --detach "$tag"
git -C "$CHECK" clean -q -fdx
"$REPO/scripts/apply.sh" "$CHECK"
echo "$stamp $(git -C "$CHECK" rev-parse HEAD)" > "$WORK/check.stamp"
