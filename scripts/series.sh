#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export the editing tree's commits since the base into series/ with
# git format-patch and rewrite series/series to list them in order; copy
# the series' selftests (tools/testing/selftests/pid/ at the tree's HEAD)
# into kselftest/pid/, which mirrors them.
. "$(dirname "$0")/lib.sh"

tree_ready
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# sync_selftests: kselftest/$KSELFTEST_OWN becomes the tree's copy.
sync_selftests() {
	local src=tools/testing/selftests/$KSELFTEST_OWN dst=$REPO/kselftest/$KSELFTEST_OWN
	if ! git -C "$TREE" cat-file -e "HEAD:$src" 2>/dev/null; then
		info "the series has no $src: kselftest/$KSELFTEST_OWN left as it is"
		return 0
	fi
	mkdir -p "$tmp/selftests"
	git -C "$TREE" archive HEAD "$src" | tar -x -C "$tmp/selftests" ||
		die "cannot read $src at HEAD of $TREE"
	if ! diff -rq "$tmp/selftests/$src" "$dst" >/dev/null 2>&1; then
		# Hand edits that were never committed are kept, not lost.
		if [ -n "$(git -C "$REPO" status --porcelain -- "kselftest/$KSELFTEST_OWN")" ]; then
			keep=$WORK/kselftest-backup-$(date +%Y%m%d-%H%M%S)
			cp -a "$dst" "$keep"
			info "kselftest/$KSELFTEST_OWN had uncommitted changes: copied to $keep (edit the selftests in $TREE)"
		fi
		rm -rf "$dst"
		cp -a "$tmp/selftests/$src" "$dst"
		info "kselftest/$KSELFTEST_OWN now mirrors $src of the series"
	fi
}

export_patches "$tmp/export"
if diff -rq -x '*~' "$tmp/export" "$REPO/series" >/dev/null; then
	info "series/ already matches $TREE ($(grep -vc '^#' "$tmp/export/series") patches)"
	sync_selftests
	exit 0
fi
# Hand edits to series/ that were never committed are kept, not lost.
if [ -n "$(git -C "$REPO" status --porcelain -- series/)" ]; then
	keep=$WORK/series-backup-$(date +%Y%m%d-%H%M%S)
	cp -a "$REPO/series" "$keep"
	info "series/ had uncommitted changes: copied to $keep"
fi
rm -f "$REPO"/series/*.patch
cp "$tmp"/export/*.patch "$REPO/series/" 2>/dev/null || true
cp "$tmp/export/series" "$REPO/series/series"
say "exported $(grep -vc '^#' "$tmp/export/series") patches to series/"
sync_selftests
git -C "$REPO" status --short -- series/ kselftest/ | sed 's/^/    /'
