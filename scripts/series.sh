#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export the editing tree's commits since the base into series/ with
# git format-patch and rewrite series/series to list them in order.
. "$(dirname "$0")/lib.sh"

tree_ready
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export_patches "$tmp"

if diff -rq -x '*~' "$tmp" "$REPO/series" >/dev/null; then
	info "series/ already matches $TREE ($(grep -vc '^#' "$tmp/series") patches)"
	exit 0
fi
# Hand edits to series/ that were never committed are kept, not lost.
if [ -n "$(git -C "$REPO" status --porcelain -- series/)" ]; then
	keep=$WORK/series-backup-$(date +%Y%m%d-%H%M%S)
	cp -a "$REPO/series" "$keep"
	info "series/ had uncommitted changes: copied to $keep"
fi
rm -f "$REPO"/series/*.patch
cp "$tmp"/*.patch "$REPO/series/" 2>/dev/null || true
cp "$tmp/series" "$REPO/series/series"
say "exported $(grep -vc '^#' "$tmp/series") patches to series/"
git -C "$REPO" status --short -- series/ | sed 's/^/    /'
