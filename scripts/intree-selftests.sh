#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# intree-selftests.sh OUT STAGE: build the tree's own selftests (lib.sh src_dir) for
# clone3, pidfd, pid_namespace and proc statically with their Makefiles
# (uapi headers from OUT/usr/include, which kselftest.sh installs) and
# stage those matching T as STAGE/tests/intree/DIR/PROG, appending
# "intree/DIR/PROG TIMEOUT" lines to STAGE/tests.list for the guest init.
#   T=GLOB            as in kselftest.sh, matched against intree/DIR/PROG
#   INTREE_TIMEOUT=N  seconds per program (default 180: pidfd_test sleeps
#                     through ~65 s under TCG); a program listed
#                     with "timeout=N" in kselftest/intree-known.txt gets N
. "$(dirname "$0")/lib.sh"

out=${1:?usage: intree-selftests.sh OUT STAGE}
stage=${2:?usage: intree-selftests.sh OUT STAGE}
T=${T:-*}
INTREE_TIMEOUT=${INTREE_TIMEOUT:-180}
INTREE_DIRS=(clone3 pidfd pid_namespace proc)
known=$REPO/kselftest/intree-known.txt
selftests=$(src_dir)/tools/testing/selftests
objs=$out/intree-selftests

# Is any program of DIR wanted? (Skip building directories T excludes.)
wanted_dir() {
	local p
	for p in $(make -s -C "$selftests/$1" emit_tests COLLECTION="$1" 2>/dev/null |
			sed -n "s|^$1:|intree/$1/|p"); do
		# shellcheck disable=SC2053
		[[ $p == $T ]] && return 0
	done
	return 1
}

# timeout_of NAME: "NAME  timeout=N ..." in the known list, else the default.
timeout_of() {
	local t
	t=$(awk -v n="$1" '$1 == n { for (i = 2; i <= NF; i++) if ($i ~ /^timeout=[0-9]+$/) { sub(/timeout=/, "", $i); print $i; exit } }' "$known" 2>/dev/null)
	echo "${t:-$INTREE_TIMEOUT}"
}

# The outer make's MAKEFLAGS (make check V=1, CC=...) must not reach lib.mk.
unset MAKEFLAGS MAKELEVEL MFLAGS
n=0
for dir in "${INTREE_DIRS[@]}"; do
	[ -d "$selftests/$dir" ] || die "$selftests/$dir is missing"
	wanted_dir "$dir" || continue
	rm -rf "${objs:?}/$dir"
	mkdir -p "$objs/$dir"
	make -s -C "$selftests/$dir" -j"$JOBS" OUTPUT="$objs/$dir" \
		KHDR_INCLUDES="-isystem $out/usr/include" \
		USERLDFLAGS=-static all ||
		die "in-tree selftests $dir do not build (errors above)"
	for prog in $(make -s -C "$selftests/$dir" emit_tests COLLECTION="$dir" |
			sed -n "s|^$dir:||p"); do
		name=intree/$dir/$prog
		# shellcheck disable=SC2053
		[[ $name == $T ]] || continue
		[ -z "${VARIANT:-}" ] || ! kselftest_skipped "$VARIANT" "$name" || continue
		[ -x "$objs/$dir/$prog" ] || die "$name was not built"
		mkdir -p "$stage/tests/intree/$dir"
		cp "$objs/$dir/$prog" "$stage/tests/intree/$dir/"
		echo "$name $(timeout_of "$name")" >> "$stage/tests.list"
		n=$((n + 1))
	done
done
[ "$n" -eq 0 ] || info "built $n in-tree selftest programs (${INTREE_DIRS[*]})"
