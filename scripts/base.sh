#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Record Debian's pristine kernel tree as a base commit in the git
# repository of the editing tree, $WORK/linux/.git, tagged
# base/<package version>. The work tree stays empty until 'make tree'. Idempotent: a version already recorded is
# not unpacked again; a new package version gets a new base tag.
. "$(dirname "$0")/lib.sh"

GIT_REPO=$TREE/.git
ver=$(pkg_version)
tag=$(base_tag)
[ -f "$TARBALL" ] || die "$TARBALL not found: is $PKG installed? (make deps)"

mkdir -p "$WORK"
if [ ! -d "$GIT_REPO" ]; then
	git init -q "$TREE"
	git --git-dir="$GIT_REPO" config gc.auto 0
fi

if git --git-dir="$GIT_REPO" rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
	info "base $tag: $(git --git-dir="$GIT_REPO" rev-parse --short "$tag")"
	exit 0
fi

say "recording $PKG $ver as $tag in $GIT_REPO"
unpack=$(mktemp -d "$WORK/.unpack.XXXXXX")
trap 'rm -rf "$unpack" "$unpack.index"' EXIT
info "unpacking $TARBALL"
tar -C "$unpack" --strip-components=1 -xf "$TARBALL"
info "committing $(find "$unpack" -type f | wc -l) files"
export GIT_DIR=$GIT_REPO GIT_WORK_TREE=$unpack GIT_INDEX_FILE=$unpack.index
git add -A -f .
tree=$(git write-tree)
commit=$(printf '%s\n\n%s\n' "Debian $PKG $ver, pristine" \
	"Unpacked from $TARBALL; the base that series/ applies to." |
	GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost \
	GIT_COMMITTER_NAME=base GIT_COMMITTER_EMAIL=base@localhost \
	GIT_AUTHOR_DATE="@$(stat -c %Y "$TARBALL") +0000" GIT_COMMITTER_DATE="@$(stat -c %Y "$TARBALL") +0000" \
	git commit-tree "$tree")
git tag "$tag" "$commit"
info "base $tag: $(git rev-parse --short "$commit")"
