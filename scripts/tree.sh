#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the editing tree $TREE (branch "pidmap") as base + series/.
# A tree whose commits already export to series/ is left alone; one that
# differs is first saved as a branch pidmap-backup-<time>, never dropped.
. "$(dirname "$0")/lib.sh"

GIT_REPO=$TREE/.git
tag=$(base_tag)
lock "$TREE"
if ! git -C "$TREE" rev-parse -q --verify HEAD >/dev/null; then
	say "checking out editing tree $TREE (branch pidmap at $tag)"
	git -C "$TREE" checkout -q -B pidmap "$tag"
	"$REPO/scripts/apply.sh" "$TREE"
	info "ready: edit and commit in $TREE, then 'make series'"
	exit 0
fi

[ ! -d "$(git -C "$TREE" rev-parse --git-path rebase-apply)" ] ||
	die "git am is in progress in $TREE: finish it (git am --continue) or abort it"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit them (or stash them) first"

if git -C "$TREE" merge-base --is-ancestor "$tag" HEAD; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	export_patches "$tmp"
	if diff -rq -x series "$tmp" "$REPO/series" -x '*~' >/dev/null &&
	   diff -q <(grep -v '^#' "$tmp/series") <(series_patches) >/dev/null; then
		info "$TREE already is base + series/ ($(series_patches | wc -l) patches)"
		exit 0
	fi
fi

backup=pidmap-backup-$(date +%Y%m%d-%H%M%S)
git -C "$TREE" branch "$backup"
say "refreshing $TREE from series/ (its previous commits are in branch $backup)"
git -C "$TREE" checkout -q -B pidmap "$tag"
"$REPO/scripts/apply.sh" "$TREE"
