#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bring the test tree $CHECK to base + series/. It belongs to the scripts:
# anything in it is discarded. The series is applied elsewhere
# (series_commit, with no checkout) and the test tree then checks the result
# out: git rewrites only the files that differ, so only they get new
# mtimes and a build after a one-patch change stays incremental.
# With SRC=tree (or a path) it only checks that the tree exists: that tree
# is built as it is.
. "$(dirname "$0")/lib.sh"

if [ "$(src_dir)" != "$CHECK" ]; then
	src=$(src_dir)
	git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
		die "SRC=${SRC:-}: no kernel tree at $src (for the editing tree: make tree)"
	info "using $src as it is, uncommitted edits included ($(git -C "$src" status --porcelain --untracked-files=no | wc -l) files modified)"
	exit 0
fi
lock "$CHECK"
# The series used to be applied in a worktree $WORK/apply (a whole kernel
# tree): gone where an older version of these scripts left it.
if [ -d "$WORK/apply" ]; then
	git -C "$TREE" worktree remove --force "$WORK/apply" 2>/dev/null || rm -rf "$WORK/apply"
	git -C "$TREE" worktree prune
	rm -f "$WORK/.apply-lock"
	info "removed $WORK/apply, which the scripts no longer use"
fi
commit=$(series_commit) || die "no test tree: base + series/ could not be made (above)"
if [ -d "$CHECK" ] && [ "$(git -C "$CHECK" rev-parse HEAD 2>/dev/null)" = "$commit" ]; then
	state=unchanged
else
	state=moved
fi
worktree_ready "$CHECK" "$commit"
git -C "$CHECK" am --abort >/dev/null 2>&1 || true
# Local edits and build leftovers (a stray .config breaks every O= build)
# go; unchanged files keep their mtimes.
git -C "$CHECK" reset -q --hard || die "git reset failed in $CHECK"
git -C "$CHECK" clean -q -fdx || die "git clean failed in $CHECK"
if [ "$state" = unchanged ]; then
	info "test tree $CHECK is base + series/ ($(series_patches | wc -l) patches), unchanged"
	exit 0
fi
changed=$(git -C "$CHECK" diff --name-only HEAD "$commit" | wc -l)
git -C "$CHECK" checkout -q -f --detach "$commit" || die "cannot check out $commit in $CHECK"
say "test tree $CHECK moved to base + series/: $changed files changed"
git -C "$CHECK" log --reverse --format='    %h %s' "$(base_tag)..HEAD"
