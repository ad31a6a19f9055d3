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

# git_identity: commits the pipeline makes (commit_patches, for the test
# and editing trees) need a committer. A fresh machine has none configured, and git then
# refuses with "Committer identity unknown". Use one of our own only when
# git cannot find the user's (environment, global or repository config).
git_identity() {
	git -C "$TREE" var GIT_COMMITTER_IDENT >/dev/null 2>&1 && return 0
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
	worktree_ready "$dir" "$(base_tag)" >&2
	git -C "$dir" checkout -q -f --detach "$(base_tag)" ||
		die "cannot check out $(base_tag) in $dir"
	echo "$dir"
}

# Which kernel tree the scripts build and test. SRC=tree is the editing
# tree's working copy, uncommitted edits included, built in
# $BUILD/tree-VARIANT; the default (SRC unset or "series") is the test
# tree, base + series/, built in $BUILD/VARIANT. Any other value is a path.
src_dir() {
	case ${SRC:-series} in
	series) echo "$CHECK" ;;
	tree)   echo "$TREE" ;;
	*)      echo "$SRC" ;;
	esac
}
build_name() {
	if [ "$(src_dir)" = "$TREE" ]; then echo "tree-$1"; else echo "$1"; fi
}

# kselftest_skips VARIANT NAME: what kselftest/skips.txt leaves out of
# kselftest program NAME (DIR/PROGRAM) on VARIANT's kernel, one case per
# line ("*": the whole program). kselftest_skipped: is NAME left out
# (says so)? kselftest_skip_args: the harness options for the cases
# (" -T CASE").
kselftest_skips() {
	awk -v v="$1" -v p="$2" '$1 == v && $2 == p { print $3 }' "$REPO/kselftest/skips.txt"
}
kselftest_skipped() {
	kselftest_skips "$1" "$2" | grep -qxF '*' || return 1
	info "$2 is not run on '$1' (kselftest/skips.txt)"
}
kselftest_skip_args() {
	kselftest_skips "$1" "$2" | awk '{ printf " -T %s", $1 }'
}

# guest_arch VARIANT: the guests (kselftests, boot) are x86_64 busybox
# systems; a variant of another architecture has no such guest.
guest_arch() {
	local frag=$REPO/kunit/$1.config arch
	[ -f "$frag" ] || die "no kunit variant '$1': $frag is missing"
	arch=$(sed -n 's/^# arch: *//p' "$frag")
	[ -z "$arch" ] || [ "$arch" = x86_64 ] ||
		die "variant '$1' is $arch: the kselftest and boot guests are x86_64 only"
}

# qemu_guest KERNEL INITRD APPEND [QEMU_ARG...]: the one QEMU command line
# of every guest (TCG, qboot, a serial console on ttyS0). GUEST_MEM (MiB,
# default 2048) and GUEST_SMP (default 2) size it; GUEST_TIMEOUT (seconds)
# bounds it. APPEND is added to the kernel command line.
qemu_guest() {
	local kernel=$1 initrd=$2 append=$3
	shift 3
	local cmd=(qemu-system-x86_64 -nodefaults -no-reboot
		-m "${GUEST_MEM:-2048}" -smp "${GUEST_SMP:-2}" -bios qboot.rom
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0 kunit.enable=0 panic=-1${append:+ $append}" "$@")
	if [ -n "${GUEST_TIMEOUT:-}" ]; then
		timeout "$GUEST_TIMEOUT" "${cmd[@]}"
	else
		"${cmd[@]}"
	fi
}

# Patches named in series/series, in order, comments and blanks skipped.
# series_patches [FILE]: the same for another copy of a series file.
series_patches() {
	local f=${1:-$REPO/series/series}
	[ -f "$f" ] || die "$f is missing"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$f"
}

# record STEP PASSED FAILED SKIPPED [OWN_PASSED OWN_FAILED OWN_SKIPPED]:
# counts that the final summary adds up; a KUnit step adds those of the
# series' own suites (kunit-count.py --own "$KUNIT_OWN_SUITES").
record() {
	mkdir -p "$RESULTS"
	if [ $# -ge 7 ]; then echo "$2 $3 $4 $5 $6 $7"; else echo "$2 $3 $4"; fi > "$RESULTS/$1.counts"
}

# The series' own KUnit suites (exact top-level suite names) and the
# directories of the patched tree whose .kunitconfig enables them; every
# other suite that runs is upstream's (.kunitconfig).
KUNIT_OWN_SUITES=pidmap,pidhash,alloc_pid,user_tasks
KUNIT_DIRS="kernel/tests/pidmap kernel/tests/user_tasks"
# The selftest directories the kselftest guest runs: the series' own (pid,
# whose sources kselftest/pid/ mirrors) and the upstream ones next to it.
KSELFTEST_OWN=pid
KSELFTEST_DIRS="pid clone3 pidfd pid_namespace proc"

# kunitconfigs TREE: the fragments of every KUnit build of TREE: the
# .kunitconfig of each of KUNIT_DIRS that TREE has (a prefix of the
# series has only some), then the repository's .kunitconfig.
kunitconfigs() {
	local d
	for d in $KUNIT_DIRS; do
		[ ! -f "$1/$d/.kunitconfig" ] || echo "$1/$d/.kunitconfig"
	done
	echo "$REPO/.kunitconfig"
}

# guest_configs TREE: what a kernel that also boots the kselftest guest
# adds: the config file of each of KSELFTEST_DIRS in TREE, then
# kselftest/guest.config (the guest's own needs).
guest_configs() {
	local d
	for d in $KSELFTEST_DIRS; do
		[ ! -f "$1/tools/testing/selftests/$d/config" ] ||
			echo "$1/tools/testing/selftests/$d/config"
	done
	echo "$REPO/kselftest/guest.config"
}

# export_patches DIR: what series/ should hold for the editing tree's
# commits since the base, written into DIR (empty or new):
#  - one git format-patch file per commit (stable across runs: zero
#    commit ids, no numbering, no signature), named after its subject
#    without format-patch's "NNNN-" number, so that a patch keeps its
#    name when the order changes;
#  - series, their order. The comment lines of series/series go to its
#    top, except "# topic: NAME" lines: each stays in front of the patch
#    it stood in front of (or the next one that is still there);
#  - series/'s other files (cover-letter, version, ...), copied as they
#    are, so that DIR compares equal to an up-to-date series/.
export_patches() {
	local dir=$1 raw f name
	raw=$dir/.format-patch
	mkdir -p "$dir"
	git -C "$TREE" format-patch -q --zero-commit --no-signature -N \
		-o "$raw" "$(base_tag)..HEAD" ||
		die "git format-patch $(base_tag)..HEAD failed in $TREE"
	: > "$dir/series.order"
	for f in "$raw"/*.patch; do
		[ -e "$f" ] || continue
		name=${f##*/}
		name=${name#[0-9][0-9][0-9][0-9]-}
		[ ! -e "$dir/$name" ] ||
			die "two commits of $TREE export to $name: give one of them another subject"
		mv "$f" "$dir/$name"
		echo "$name" >> "$dir/series.order"
	done
	rm -rf "$raw"
	local old=$REPO/series/series
	[ -f "$old" ] || old=/dev/null
	awk '
	FILENAME == ARGV[1] { new[$0] = 1; order[++n] = $0; next }
	/^#[[:space:]]*topic:/ { pending = pending $0 "\n"; next }
	/^#/ { print; next }
	{
		p = $0; sub(/#.*/, "", p); gsub(/[[:space:]]/, "", p)
		sub(/^[0-9][0-9][0-9][0-9]-/, "", p)
		if (p in new && pending != "") { before[p] = pending; pending = "" }
	}
	END {
		for (i = 1; i <= n; i++) printf "%s%s\n", before[order[i]], order[i]
		if (pending != "")
			printf "    series/series: no patch is left after these lines, dropped:\n%s",
				pending > "/dev/stderr"
	}' "$dir/series.order" "$old" > "$dir/series.new"
	rm -f "$dir/series.order"
	mv "$dir/series.new" "$dir/series"
	for f in "$REPO"/series/*; do
		case ${f##*/} in
		*.patch | series | *~) ;;
		*) [ ! -f "$f" ] || cp -p "$f" "$dir/" ;;
		esac
	done
}

# series_stamp: a hash of the base commit and every patch of series/, in
# order; equal stamps mean the same base + series/.
series_stamp() {
	{ git -C "$TREE" rev-parse "$(base_tag)"; series_patches |
		while read -r p; do echo "$p"; cat "$REPO/series/$p" 2>/dev/null; done; } |
		sha256sum | cut -d' ' -f1
}

# worktree_ready DIR COMMIT: DIR is a worktree of the editing tree's
# repository (added at COMMIT if missing). A directory that is missing
# but still registered, or a worktree of a repository that was recreated
# since, is pruned and added again.
worktree_ready() {
	local dir=$1 commit=$2
	local common
	common=$(git -C "$dir" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) || common=
	if [ -d "$dir" ] && { [ -z "$common" ] || [ "$(realpath "$common")" != "$(realpath "$TREE/.git")" ]; }; then
		info "$dir is not a worktree of $TREE: adding it again"
		rm -rf "$dir"
	fi
	if [ ! -d "$dir" ]; then
		git -C "$TREE" worktree prune
		info "creating the worktree $dir"
		git -C "$TREE" worktree add -q --detach "$dir" "$commit" ||
			die "cannot add the worktree $dir"
	fi
}

# series_commit: base + series/ as a commit of the editing tree's
# repository (commit_patches --exact: no fuzz, no offset, no checkout); prints
# its id. Trees that are built (the test tree) move to it with a checkout
# that touches only the files that differ. Cached by series_stamp.
series_commit() {
	local stamp s c commit p patches
	stamp=$(series_stamp)
	{ read -r s c < "$WORK/apply.stamp"; } 2>/dev/null || true
	if [ "${s:-}" = "$stamp" ] && git -C "$TREE" cat-file -e "${c:-none}^{commit}" 2>/dev/null; then
		echo "$c"
		return 0
	fi
	mapfile -t patches < <(series_patches)
	for p in "${patches[@]}"; do
		[ -f "$REPO/series/$p" ] || die "series/series names $p, which is not in series/"
	done
	commit=$(commit_patches --exact "$(base_tag)" "${patches[@]/#/$REPO/series/}") || return 1
	# Keep the commit reachable: gc.auto is off, but a manual gc must
	# not prune a tree the test tree may sit on.
	git -C "$TREE" update-ref refs/pidmap/series "$commit"
	echo "$stamp $commit" > "$WORK/apply.stamp.$$" && mv -f "$WORK/apply.stamp.$$" "$WORK/apply.stamp"
	echo "$commit"
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

# Kernel log lines that mean a bug: warnings, lockdep, RCU (lists, stalls),
# hung tasks, UBSAN, KASAN and kmemleak
# reports. Any of them fails a guest run.
KERNEL_BUGS='WARNING:|BUG:|Oops|possible (recursive|circular) locking|suspicious RCU usage|detected stall|blocked for more than [0-9]+ seconds|UBSAN:|suspected memory leak'

# progress DIR: while a build runs in DIR, say every minute how far it got
# (kunit.py hides make's output). Stopped by stop_progress or at exit.
progress() {
	local dir=$1 t0
	t0=$(date +%s)
	mkdir -p "$dir"
	touch "$dir/.progress"
	# The loop holds no lock (a killed script would leave it holding
	# one) and ends with the script.
	( for fd in ${PIDMAP_LOCK_FDS:-}; do eval "exec $fd>&-"; done
	  parent=$$
	  while sleep 60 && kill -0 "$parent" 2>/dev/null; do
		info "... $(( ($(date +%s) - t0) / 60 )) min, $(find "$dir" -name '*.o' -newer "$dir/.progress" 2>/dev/null | wc -l) objects compiled"
	  done ) &
	PROGRESS_PID=$!
	trap stop_progress EXIT
}
stop_progress() { [ -z "${PROGRESS_PID:-}" ] || kill "$PROGRESS_PID" 2>/dev/null || true; }

# expand_frags TREE FRAGMENT...: the fragments, one path per line; a
# fragment with a "# guest: kselftest" line (its kernel also boots the
# kselftest guest) is preceded by guest_configs TREE (GUEST_TREE, if set:
# the tree whose selftests the guest runs).
expand_frags() {
	local tree=$1 frag
	shift
	for frag in "$@"; do
		! grep -qx '# guest: kselftest' "$frag" || guest_configs "${GUEST_TREE:-$tree}"
		echo "$frag"
	done
}

# kunit_build SRC OUT LOG FRAGMENT...: build SRC's kernel in OUT through
# kunit.py (x86_64, ccache) from the given kunitconfig fragments, with
# progress lines; dies naming LOG when the build fails.
kunit_build() {
	local src=$1 out=$2 log=$3 frag frags args=()
	shift 3
	mapfile -t frags < <(expand_frags "$src" "$@")
	for frag in "${frags[@]}"; do args+=("--kunitconfig=$frag"); done
	mkdir -p "$out" "$(dirname "$log")"
	progress "$out"
	python3 "$src/tools/testing/kunit/kunit.py" build \
		--arch=x86_64 --jobs="$JOBS" --build_dir="$out" "${args[@]}" \
		--make_options="CC=ccache gcc" > "$log" 2>&1 ||
		{ stop_progress; tail -20 "$log"; die "kernel in $out did not build: see $log"; }
	stop_progress
}

# pristine_build LOG: pristine 6.12 (pristine_worktree) built through
# kunit.py in $BUILD/pristine with the default variant's fragments but no
# suite of the series (it has none), for the selftests of the test tree:
# the kernel of 'make bench's pristine rows and 'make kselftest-pristine'.
pristine_build() {
	local tree
	tree=$(pristine_worktree)
	printf 'CONFIG_KUNIT=y\n' > "$BUILD/pristine.kunitconfig"
	GUEST_TREE=$CHECK kunit_build "$tree" "$BUILD/pristine" "$1" "$BUILD/pristine.kunitconfig" \
		"$REPO/kunit/common.config" "$REPO/kunit/default.config"
}

# lock PATH...: hold a lock on each PATH, a tree or a build directory
# (the file PATH.lock beside it), until the script exits, taking them in
# the order given: trees first, then build directories, in every script,
# so that two runs never wait for each other in a circle. One run at a
# time uses a directory; runs that share none go on side by side (make
# kunit SRC=tree beside make check). A script started by one that holds
# a lock shares it (PIDMAP_LOCKS; the descriptor is inherited).
lock() {
	local dir fd
	for dir in "$@"; do
		case ":${PIDMAP_LOCKS:-}:" in *":$dir:"*) continue ;; esac
		mkdir -p "$(dirname "$dir")"
		exec {fd}>"$dir.lock"
		flock -n "$fd" || { info "waiting for another run that uses $dir"; flock "$fd"; }
		export PIDMAP_LOCKS=${PIDMAP_LOCKS:+$PIDMAP_LOCKS:}$dir
		export PIDMAP_LOCK_FDS="${PIDMAP_LOCK_FDS:-} $fd"
	done
}

# series_topics: the topics of series/series, in order. A line
# "# topic: NAME" starts a topic; the patches after it, up to the next
# such line, are its patches: a group meant to apply (and to be mailed)
# on its own, on the base. series_topic NAME prints a topic's patches.
series_topics() {
	sed -n 's/^#[[:space:]]*topic:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$REPO/series/series"
}
series_topic() {
	awk -v t="$1" '
	/^#[[:space:]]*topic:/ { cur = $0; sub(/^#[[:space:]]*topic:[[:space:]]*/, "", cur); sub(/[[:space:]].*/, "", cur); next }
	{ sub(/#.*/, ""); gsub(/[[:space:]]/, "") }
	$0 != "" && cur == t' "$REPO/series/series"
}

# commit_patches [--exact] PARENT FILE...: the patch files applied, in
# order, on PARENT as commits of the editing tree's repository, with no
# checkout: each goes through git mailinfo (author, date and message, as
# git am takes them, and the notes between the message's own "---" and
# the diffstat, which git am drops; CRs at line ends are dropped, as git
# am drops them), git apply --cached on a temporary index and git commit-tree. Prints the
# last commit's id (PARENT when there is no file). A patch that does not
# apply stops it with an error that names the patch and the hunks; with
# --exact, so does one with a hunk that applies only at an offset (git
# apply -v says so; it never fuzzes): series/ must apply exactly to the
# base, while a topic alone (make mail) or an old revision (make
# range-diff) may land at offsets. Only unreferenced objects are left
# behind on failure. The one way the scripts apply patches.
commit_patches() (
	exact=
	[ "$1" != --exact ] || { exact=1; shift; }
	parent=$1
	shift
	tmp=$(mktemp -d) || die "cannot create a temporary directory"
	trap 'rm -rf "$tmp"' EXIT
	export GIT_INDEX_FILE=$tmp/index
	git -C "$TREE" read-tree "$parent" || die "cannot read $parent in $TREE"
	git_identity >&2
	field() { sed -n "s/^$1: //p" "$tmp/info"; }
	for f in "$@"; do
		sed 's/\r$//' "$f" | git mailinfo "$tmp/msg" "$tmp/patch" > "$tmp/info" ||
			die "git mailinfo cannot read $f"
		if ! out=$(LC_ALL=C git -C "$TREE" apply --cached -v "$tmp/patch" 2>&1); then
			grep -vE '^(Checking patch|Applied patch)' <<<"$out" | sed 's/^/    /' >&2 || true
			die "${f##*/} does not apply on $(git -C "$TREE" log -1 --format='%h %s' "$parent") (above)"
		fi
		if [ -n "$exact" ] && grep -qE '^Hunk #[0-9]+ succeeded at [0-9]+ \(offset' <<<"$out"; then
			grep -E '^(Checking patch|Hunk #)' <<<"$out" | sed 's/^/    /' >&2 || true
			die "${f##*/} applies only at an offset (above): regenerate it from the editing tree with 'make series'"
		fi
		tree=$(git -C "$TREE" write-tree)
		# Notes below the message's own "---" (how it was tested), which
		# git am drops, stay in the commit: format-patch gives them back.
		awk '/^diff --git /{exit} /^---$/{if (++n == 2) {printf "%s", notes; exit} next}
			n == 1 {notes = notes $0 "\n"}' "$tmp/patch" > "$tmp/notes"
		parent=$({ field Subject; echo; cat "$tmp/msg"
			if [ -s "$tmp/notes" ]; then echo ---; cat "$tmp/notes"; fi; } | git stripspace |
			GIT_AUTHOR_NAME=$(field Author) GIT_AUTHOR_EMAIL=$(field Email) \
			GIT_AUTHOR_DATE=$(field Date) git -C "$TREE" commit-tree "$tree" -p "$parent") ||
			die "git commit-tree failed for ${f##*/}"
	done
	echo "$parent"
)
