#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# range-diff.sh [OLD]: git range-diff between the series as series/ held it
# at OLD, a revision of this repository (default HEAD: the committed
# series), and series/ as it is now in the working tree. Both sides are
# made commits on the base with no checkout (commit_patches: a temporary
# index in the editing tree's repository); OLD's patches are read with
# git show OLD:series/..., in the order of OLD's series/series, so a
# revision that named the patches otherwise compares all the same. The
# two sides stay as refs/pidmap/range-diff/old and .../new.
. "$(dirname "$0")/lib.sh"

old=${1:-HEAD}
oldc=$(git -C "$REPO" rev-parse -q --verify "$old^{commit}") ||
	die "OLD=$old is not a revision of $REPO"
base=$(git -C "$TREE" rev-parse -q --verify "$(base_tag)^{commit}") ||
	die "no base commit $(base_tag) in $TREE: run 'make base'"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$REPO" show "$oldc:series/series" > "$tmp/series" 2>/dev/null ||
	die "$old has no series/series"
mapfile -t oldp < <(series_patches "$tmp/series")
for p in "${oldp[@]}"; do
	git -C "$REPO" show "$oldc:series/$p" > "$tmp/$p" 2>/dev/null ||
		die "series/series at $old names $p, which series/ at $old does not hold"
done
mapfile -t newp < <(series_patches)
for p in "${newp[@]}"; do
	[ -f "$REPO/series/$p" ] || die "series/series names $p, which is not in series/"
done

info "applying series/ at $old (${#oldp[@]} patches) and series/ now (${#newp[@]} patches) to $(base_tag)"
old_tip=$(commit_patches "$base" "${oldp[@]/#/$tmp/}") ||
	die "series/ at $old does not apply to $(base_tag) (above)"
new_tip=$(commit_patches "$base" "${newp[@]/#/$REPO/series/}") ||
	die "series/ does not apply to $(base_tag) (above)"
git -C "$TREE" update-ref refs/pidmap/range-diff/old "$old_tip"
git -C "$TREE" update-ref refs/pidmap/range-diff/new "$new_tip"

say "range-diff: series/ at $(git -C "$REPO" log -1 --format='%h (%s)' "$oldc") -> series/ now"
git -C "$TREE" range-diff "$base..$old_tip" "$base..$new_tip" ||
	die "git range-diff failed"
