# SPDX-License-Identifier: GPL-2.0
# Common settings and helpers for the pidmap scripts. Sourced, not run.

set -euo pipefail

# Debian's python3 (with python3-ply for checkpatch's spdxcheck), not
# whatever else may come first in PATH.
export PATH=/usr/bin:/bin:$PATH

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Everything derived from the kernel lives outside the repository.
WORK=${WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/pidmap}
PKG=${PKG:-linux-source-6.12}
TARBALL=${TARBALL:-/usr/src/$PKG.tar.xz}
TREE=$WORK/linux            # editing tree: branch "pidmap", yours to commit in
CHECK=$WORK/check           # test tree: base + series/, reset by every run
BUILD=$WORK/build           # one build directory per kunit variant
RESULTS=$WORK/results       # per-step counts and logs of the last run
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}

if [ -t 1 ]; then B=$'\e[1m' R=$'\e[31m' G=$'\e[32m' N=$'\e[0m'; else B= R= G= N=; fi

say()  { printf '%s==> %s%s\n' "$B" "$*" "$N"; }
info() { printf '    %s\n' "$*"; }
die()  { printf '%sERROR: %s%s\n' "$R" "$*" "$N" >&2; exit 1; }

# git_identity: commits the pipeline makes (git am in the test and editing
# trees) need a committer. A fresh machine has none configured, and git then
# refuses with "Committer identity unknown". Use one of our own only when
# git cannot find the user's (environment, global or repository config).
git_identity() {
	git var GIT_COMMITTER_IDENT >/dev/null 2>&1 && return 0
	export GIT_COMMITTER_NAME="pidmap scripts" GIT_COMMITTER_EMAIL="pidmap@localhost"
	info "no git identity configured: committing as $GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL>"
}

# The base tag names the Debian package version the base commit holds.
pkg_version() {
	dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null ||
		die "$PKG is not installed: run 'make deps' (apt-get install $PKG)"
}
base_tag() { echo "base/$(pkg_version | tr '~:' '_.')"; }

# pristine_worktree: $WORK/pristine, a worktree of $TREE at the base
# commit (for builds of 6.12 as Debian ships it); prints its path.
pristine_worktree() {
	local dir=$WORK/pristine
	if [ ! -d "$dir" ]; then
		git -C "$TREE" worktree add -q --detach "$dir" "$(base_tag)" ||
			die "cannot add the worktree $dir"
	else
		git -C "$dir" checkout -q -f --detach "$(base_tag)" ||
			die "cannot check out $(base_tag) in $dir"
	fi
	echo "$dir"
}

# Patches named in series/series, in order, comments and blanks skipped.
series_patches() {
	[ -f "$REPO/series/series" ] || die "series/series is missing"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$REPO/series/series"
}

# record STEP PASSED FAILED SKIPPED: counts that the final summary adds up.
record() {
	mkdir -p "$RESULTS"
	echo "$2 $3 $4" > "$RESULTS/$1.counts"
}

# export_patches DIR: the editing tree's commits since the base, as
# git format-patch writes them (stable across runs: zero commit ids, no
# numbering, no signature), plus the series file that orders them.
export_patches() {
	local dir=$1
	mkdir -p "$dir"
	git -C "$TREE" format-patch -q --zero-commit --no-signature -N \
		-o "$dir" "$(base_tag)..HEAD"
	{
		sed -n '/^#/p' "$REPO/series/series" 2>/dev/null
		(cd "$dir" && ls -1 -- *.patch 2>/dev/null) || true
	} > "$dir/series.new"
	mv "$dir/series.new" "$dir/series"
}

# tree_ready: the editing tree exists, is clean and sits on the base.
tree_ready() {
	git -C "$TREE" rev-parse -q --verify HEAD >/dev/null ||
		die "no editing tree at $TREE: run 'make tree' first"
	[ ! -d "$(git -C "$TREE" rev-parse --git-path rebase-apply)" ] ||
		die "git am is in progress in $TREE: finish it (git am --continue) or abort it"
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes: commit them (or stash them) first"
	git -C "$TREE" merge-base --is-ancestor "$(base_tag)" HEAD ||
		die "$TREE is not on top of $(base_tag) (package updated?): run 'make tree'"
}

# Kernel log lines that mean a bug: warnings, lockdep, RCU and sanitizer
# reports. Any of them fails a guest run.
KERNEL_BUGS='WARNING:|BUG:|Oops|possible (recursive|circular) locking|suspicious RCU usage|detected stall|blocked for more than [0-9]+ seconds'

# progress DIR: while a build runs in DIR, say every minute how far it got
# (kunit.py hides make's output). Stopped by stop_progress or at exit.
progress() {
	local dir=$1 t0
	t0=$(date +%s)
	mkdir -p "$dir"
	touch "$dir/.progress"
	( while sleep 60; do
		info "... $(( ($(date +%s) - t0) / 60 )) min, $(find "$dir" -name '*.o' -newer "$dir/.progress" 2>/dev/null | wc -l) objects compiled"
	  done ) 9>&- &
	PROGRESS_PID=$!
	trap stop_progress EXIT
}
stop_progress() { [ -z "${PROGRESS_PID:-}" ] || kill "$PROGRESS_PID" 2>/dev/null || true; }

# kunit_build SRC OUT LOG FRAGMENT...: build SRC's kernel in OUT through
# kunit.py (x86_64, ccache) from the given kunitconfig fragments, with
# progress lines; dies naming LOG when the build fails.
kunit_build() {
	local src=$1 out=$2 log=$3 frag args=()
	shift 3
	for frag in "$@"; do args+=("--kunitconfig=$frag"); done
	mkdir -p "$out" "$(dirname "$log")"
	progress "$out"
	python3 "$src/tools/testing/kunit/kunit.py" build \
		--arch=x86_64 --jobs="$JOBS" --build_dir="$out" "${args[@]}" \
		--make_options="CC=ccache gcc" > "$log" 2>&1 ||
		{ stop_progress; tail -20 "$log"; die "kernel in $out did not build: see $log"; }
	stop_progress
}

# lock_work: one build or guest at a time per work directory (2 cores);
# a second run waits here for the first. Released when the script exits.
lock_work() {
	# A script run by one that holds the lock shares it (fd 9 is inherited).
	[ "${PIDMAP_LOCK_HELD:-}" = "$WORK" ] && return 0
	mkdir -p "$WORK"
	exec 9>"$WORK/.lock"
	flock -n 9 || { info "waiting for another run in $WORK to finish"; flock 9; }
	export PIDMAP_LOCK_HELD=$WORK
}
