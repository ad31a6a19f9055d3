#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kselftest.sh VARIANT: build the selftest directories of the tree under
# test (the series' own tools/testing/selftests/pid/, which kselftest/pid/
# mirrors, and upstream's clone3, pidfd, pid_namespace and proc) with
# their own Makefiles (selftests.sh), pack them with busybox into an
# initramfs, boot $BUILD/VARIANT's bzImage in QEMU (TCG, -smp 2) and
# parse the TAP the guest writes to its second serial port; failures
# listed in kselftest/known-failures.txt (those of pristine 6.12 in this
# guest) count as known, not failed. The guest clears kmemleak before the
# first test and scans twice after the last; a reported leak, like any
# kernel bug report in the log, fails the run.
# The guest's own init runs the programs, not run_kselftest.sh: its
# runner.sh needs /usr/bin/timeout --foreground, which busybox lacks.
#   T=GLOB       run only programs whose DIR/PROG matches GLOB
#                (e.g. 'pid/*', 'pidfd/*', 'pid/threads_test')
#   KSFT_ARGS=.. arguments for the one program T names
#                (T=pid/session_test KSFT_ARGS='-t setsid_new_session')
#   SRC=tree     the kernel and selftests of the editing tree (lib.sh)
#   NAME=n       result name (default: VARIANT, tree-VARIANT with SRC=tree)
#   OUT=dir      the build directory whose kernel boots (default:
#                $BUILD/NAME), as kunit.sh takes them
# kselftest/skips.txt can leave out, per variant, cases its kernel is too
# slow for under TCG.
. "$(dirname "$0")/lib.sh"

variant=${1:-default}
ktree=$(src_dir)
name=${NAME:-$(build_name "$variant")}
out=${OUT:-$BUILD/$name}
guest_arch "$variant"
if [ -z "${PRISTINE:-}" ]; then
	lock "$ktree" "$out"
else
	# The known-failures rule: on pristine 6.12, with the test tree's
	# selftests, only what kselftest/known-failures.txt lists may fail.
	[ "$variant" = default ] || die "PRISTINE=1 is the default variant's config only"
	[ "$ktree" = "$CHECK" ] || die "PRISTINE=1 runs the test tree's selftests: no SRC"
	name=pristine out=$BUILD/pristine
	lock "$CHECK" "$WORK/pristine" "$out"
	say "kselftests on pristine $(base_tag): building it in $out"
	pristine_build "$RESULTS/kunit-pristine-build.log"
	ktree=$(pristine_worktree)
fi
kernel=$out/arch/x86/boot/bzImage
stage=$out/kselftest-root
tap=$RESULTS/kselftest-$name.tap
console=$RESULTS/kselftest-$name.console
T=${T:-*}
KSFT_ARGS=${KSFT_ARGS:-}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-1500}
rm -f "$RESULTS/kselftest-$name.counts"
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kunit${SRC:+ SRC=$SRC} VARIANT=$variant' (or make check) first"

say "kselftests: uapi headers from $ktree into $out/usr"
make -s -C "$ktree" ARCH=x86_64 O="$out" headers_install >/dev/null ||
	die "headers_install failed in $out"

# kselftest/pid/ is a copy of the series' tools/testing/selftests/pid/
# (make series writes it): it must not drift from what the series holds.
if [ "$(src_dir)" = "$CHECK" ] && ! diff -r -q -x '*~' "$REPO/kselftest/$KSELFTEST_OWN" \
		"$CHECK/tools/testing/selftests/$KSELFTEST_OWN" > "$RESULTS/kselftest-sync.diff" 2>&1; then
	sed 's/^/    /' "$RESULTS/kselftest-sync.diff" >&2
	die "kselftest/$KSELFTEST_OWN differs from tools/testing/selftests/$KSELFTEST_OWN in series/: edit the selftests in the editing tree, then 'make series' (it copies them here)"
fi

say "kselftests: building the tree's selftests (static)"
rm -rf "$stage"
mkdir -p "$stage/tests"
: > "$stage/tests.list"
T=$T VARIANT=$variant "$REPO/scripts/selftests.sh" "$out" "$stage" ||
	die "selftests do not build"
[ -s "$stage/tests.list" ] || die "no kselftest program matches T='$T'"
if [ -n "$KSFT_ARGS" ] && [ "$(wc -l < "$stage/tests.list")" -ne 1 ]; then
	die "KSFT_ARGS='$KSFT_ARGS' is for one program, but T='$T' matches $(wc -l < "$stage/tests.list"): $(cut -d' ' -f1 "$stage/tests.list" | tr '\n' ' ')"
fi

# tests.list: "NAME TIMEOUT [ARGS]" per program, NAME relative to /tests.
cat > "$stage/init.sh" <<INIT
exec 3>/dev/ttyS1
echo "# guest: \$(uname -r) \$(nproc) cpus" >&3
kmemleak=/sys/kernel/debug/kmemleak
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -w \$kmemleak ]; then
	# Leak suspects from boot are not the tests': no automatic scans,
	# report what boot left (scan twice) and clear it (clear only greys
	# objects already reported). The kernel log check then skips the
	# "suspected memory leaks" lines these scans printed.
	echo scan=off > \$kmemleak
	echo scan > \$kmemleak; sleep 2; echo scan > \$kmemleak
	echo "# kmemleak before the tests (not counted): \$(grep -c '^unreferenced object' \$kmemleak) unreferenced objects" >&3
	echo clear > \$kmemleak
fi
dmesg > /tmp/dmesg.boot
exec 4</tests.list
while read -r name secs args <&4; do
	t=/tests/\$name
	echo "# selftest: \$name" >&3
	t0=\$(cut -d. -f1 /proc/uptime)
	# Output goes to a file: a child left running cannot hold a pipe open.
	( cd "\${t%/*}" && timeout -s KILL "\$secs" "\$t" \$args $KSFT_ARGS; echo \$? > /tmp/rc ) > /tmp/out 2>&1
	# This shell is PID 1: kill -1 reaches every process a test left.
	kill -KILL -1 2>/dev/null
	cat /tmp/out >&3
	cat /tmp/out > /dev/console
	echo "# time: \$name \$((\$(cut -d. -f1 /proc/uptime) - t0)) s" >&3
	echo "# exit: \$name \$(cat /tmp/rc)" >&3
done
exec 4<&-
if [ -w \$kmemleak ]; then
	# Objects younger than a second or referenced from a register at
	# the first scan are not reported: scan twice, as kmemleak.rst does.
	sleep 2; echo scan > \$kmemleak; sleep 2; echo scan > \$kmemleak
	echo "# kmemleak: \$(grep -c '^unreferenced object' \$kmemleak) unreferenced objects" >&3
	head -300 \$kmemleak >&3
fi
# The log since boot, without the kmemleak lines of the scans before the tests.
{ grep -v 'suspected memory leaks' /tmp/dmesg.boot; dmesg | tail -n +\$((\$(wc -l < /tmp/dmesg.boot) + 1)); } > /tmp/dmesg.all
echo "# dmesg warnings: \$(grep -cE '$KERNEL_BUGS' /tmp/dmesg.all)" >&3
grep -A30 -E '$KERNEL_BUGS' /tmp/dmesg.all | head -200 >&3
echo "# guest done" >&3
INIT
"$REPO/scripts/initramfs.sh" "$stage" "$out/kselftest-initramfs.cpio.gz"

say "kselftests: booting $kernel (TCG, -smp 2; console: $console)"
rm -f "$tap" "$console"
: > "$tap"
start=$(date +%s)
GUEST_TIMEOUT=$GUEST_TIMEOUT qemu_guest "$kernel" "$out/kselftest-initramfs.cpio.gz" \
	"loglevel=4" -display none -serial "file:$console" -serial "file:$tap" < /dev/null &
qemu=$!
tail -n +1 -f --pid=$qemu "$tap" | tr -d '\r' |
	grep --line-buffered -E '^(ok|not ok|# (selftest|exit|guest|kmemleak)|# +(FAILED|PASSED|Totals))' |
	sed -u 's/^/    /' || true
rc=0
wait $qemu || rc=$?
info "guest ran $(( $(date +%s) - start )) s, qemu exit $rc"

# On pristine 6.12 the cases that test what the series adds must fail
# (kselftest/series-only.txt) and count as known there.
known=$REPO/kselftest/known-failures.txt
if [ -n "${PRISTINE:-}" ]; then
	known=$out/kselftest-known.txt
	cat "$REPO/kselftest/known-failures.txt" "$REPO/kselftest/series-only.txt" > "$known"
fi
counts=$(python3 "$REPO/scripts/tap-count.py" --own "$KSELFTEST_OWN/" --known "$known" "$tap") || {
	record "kselftest-$name" 0 1 0
	die "kselftests failed: see $tap and $console"
}
record "kselftest-$name" $counts
read -r p f s k <<<"$counts"
info "kselftests: $p passed, $f failed, $s skipped (of them $k known failures)"
[ "$f" -eq 0 ] || die "kselftests failed: see $tap and $console"
