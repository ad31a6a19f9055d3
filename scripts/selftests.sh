#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests.sh OUT STAGE: build the selftest directories the kselftest
# guest runs (lib.sh KSELFTEST_DIRS: the series' own pid/ and upstream's
# clone3, pidfd, pid_namespace, proc) from the tree under test with the
# kernel's own entry point, make -C tools/testing/selftests TARGETS=...
# install, statically, against the uapi headers kselftest.sh installed in
# OUT/usr/include; the series' own directory builds with -Werror. The
# programs that match T are staged as STAGE/tests/DIR/PROG with a line
# "DIR/PROG TIMEOUT ARGS" each in STAGE/tests.list for the guest init.
#   T=GLOB              as in kselftest.sh, matched against DIR/PROG
#   SELFTEST_TIMEOUT=N  seconds per program of a directory without a
#                       settings file (default 180: pidfd_test sleeps
#                       through ~65 s under TCG; kselftest's own default
#                       is 45). A directory's "timeout=N" in settings wins,
#                       and a "timeout=N" in kselftest/known-failures.txt
#                       wins over both.
. "$(dirname "$0")/lib.sh"

out=${1:?usage: selftests.sh OUT STAGE}
stage=${2:?usage: selftests.sh OUT STAGE}
T=${T:-*}
SELFTEST_TIMEOUT=${SELFTEST_TIMEOUT:-180}
known=$REPO/kselftest/known-failures.txt
selftests=$(src_dir)/tools/testing/selftests
inst=$out/kselftest-install

# timeout_of DIR/PROG: see above.
timeout_of() {
	local t
	t=$(awk -v n="$1" '$1 == n { for (i = 2; i <= NF; i++) if ($i ~ /^timeout=[0-9]+$/) { sub(/timeout=/, "", $i); print $i; exit } }' "$known" 2>/dev/null)
	[ -n "$t" ] || t=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' "$selftests/${1%%/*}/settings" 2>/dev/null)
	echo "${t:-$SELFTEST_TIMEOUT}"
}

# The directories T can match: its first component, as a glob, when it
# has a "/" (T='*session*' can match in any directory).
case $T in */*) tdir=${T%%/*} ;; *) tdir='*' ;; esac
own=() upstream=()
for dir in $KSELFTEST_DIRS; do
	[ -d "$selftests/$dir" ] || { [ "$dir" = "$KSELFTEST_OWN" ] && info "no $selftests/$dir: a prefix of the series without its selftests"; continue; }
	# shellcheck disable=SC2053
	[[ $dir == $tdir ]] || continue
	if [ "$dir" = "$KSELFTEST_OWN" ]; then own+=("$dir"); else upstream+=("$dir"); fi
done
[ $((${#own[@]} + ${#upstream[@]})) -gt 0 ] || exit 0

# The outer make's MAKEFLAGS (make check V=1, CC=...) must not reach lib.mk.
unset MAKEFLAGS MAKELEVEL MFLAGS
rm -rf "$inst"
for set in own upstream; do
	declare -n dirs=$set
	[ ${#dirs[@]} -gt 0 ] || continue
	werror=
	[ "$set" = own ] && werror=-Werror
	mkdir -p "$inst/$set"
	info "make -C tools/testing/selftests TARGETS=\"${dirs[*]}\" install (static${werror:+, $werror})"
	make -s -C "$selftests" -j"$JOBS" O="$out" TARGETS="${dirs[*]}" FORCE_TARGETS=1 \
		USERCFLAGS="$werror" USERLDFLAGS=-static \
		INSTALL_PATH="$inst/$set" install > "$out/kselftest-$set-build.log" 2>&1 || {
		grep -E 'error|Error' "$out/kselftest-$set-build.log" | head -20 | sed 's/^/    /' >&2
		die "selftests ${dirs[*]} do not build (log: $out/kselftest-$set-build.log)"
	}
	n=0
	while IFS=: read -r dir prog; do
		name=$dir/$prog
		# shellcheck disable=SC2053
		[[ $name == $T ]] || continue
		[ -x "$inst/$set/$dir/$prog" ] || die "$name was not built"
		kselftest_skipped "${VARIANT:-default}" "$name" && continue
		skips=$(kselftest_skip_args "${VARIANT:-default}" "$name")
		[ -z "$skips" ] || info "$name on '${VARIANT:-default}' without:$skips (kselftest/skips.txt)"
		mkdir -p "$stage/tests/$dir"
		cp "$inst/$set/$dir/$prog" "$stage/tests/$dir/"
		echo "$name $(timeout_of "$name")$skips" >> "$stage/tests.list"
		n=$((n + 1))
	done < "$inst/$set/kselftest-list.txt"
	info "staged $n programs of ${dirs[*]}"
done
