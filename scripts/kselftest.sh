#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kselftest.sh VARIANT: build kselftest/*/*.c against the tree's installed
# uapi headers and kselftest_harness.h, and the tree's own selftests for
# clone3, pidfd, pid_namespace and proc (intree-selftests.sh), pack them
# with busybox into an initramfs, boot $BUILD/VARIANT's bzImage in QEMU
# (TCG, -smp 2) and parse the TAP the guest writes to its second serial
# port; failures listed in kselftest/intree-known.txt (those of pristine
# 6.12 in this guest) count as known, not failed. The guest clears
# kmemleak before the first test and scans twice after the last; a
# reported leak, like any kernel bug report in the log, fails the run.
#   T=GLOB       run only test programs whose suite/name matches GLOB
#                (e.g. 'session/*', 'intree/*', 'intree/pidfd/*')
#   KSFT_ARGS=.. arguments for the one program T names
#                (T=session/session_test KSFT_ARGS='-t setsid_twice')
#   SRC=tree     the kernel and headers of the editing tree (lib.sh)
# A variant's fragment can leave out cases its kernel is too slow for
# under TCG, with their reason in a comment:
#   # kselftest-skip: SUITE/PROGRAM CASE     (CASE "*": the whole program)
. "$(dirname "$0")/lib.sh"
lock_work

variant=${1:-default}
ktree=$(src_dir)
name=$(build_name "$variant")
out=$BUILD/$name
guest_arch "$variant"
kernel=$out/arch/x86/boot/bzImage
stage=$out/kselftest-root
tap=$RESULTS/kselftest-$name.tap
console=$RESULTS/kselftest-$name.console
T=${T:-*}
KSFT_ARGS=${KSFT_ARGS:-}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-1500}
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
rm -f "$RESULTS/kselftest-$name.counts"
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kunit${SRC:+ SRC=$SRC} VARIANT=$variant' (or make check) first"

say "kselftests: headers from $ktree into $out/usr"
make -s -C "$ktree" ARCH=x86_64 O="$out" headers_install >/dev/null ||
	die "headers_install failed in $out"

say "kselftests: building kselftest/ (static, -Werror)"
rm -rf "$stage"
mkdir -p "$stage/tests"
: > "$stage/tests.list"
for src in "$REPO"/kselftest/*/*.c; do
	[ -e "$src" ] || continue
	suite=$(basename "$(dirname "$src")") prog=$(basename "$src" .c)
	# shellcheck disable=SC2053
	[[ "$suite/$prog" == $T ]] || continue
	mkdir -p "$stage/tests/$suite"
	gcc -static -O2 -g -Wall -Werror -pthread -D_GNU_SOURCE \
		-isystem "$out/usr/include" -I "$ktree/tools/testing/selftests" \
		-o "$stage/tests/$suite/$prog" "$src" ||
		die "kselftest/$suite/$prog.c does not build (errors above)"
	info "built $suite/$prog"
	kselftest_skipped "$variant" "$suite/$prog" && continue
	skips=$(kselftest_skip_args "$variant" "$suite/$prog")
	[ -z "$skips" ] || info "$suite/$prog on '$variant' without:$skips (kunit/$variant.config)"
	echo "$suite/$prog $TEST_TIMEOUT$skips" >> "$stage/tests.list"
done

say "kselftests: building the test tree's selftests (static)"
T=$T VARIANT=$variant "$REPO/scripts/intree-selftests.sh" "$out" "$stage" ||
	die "in-tree selftests do not build"
[ -s "$stage/tests.list" ] || die "no kselftest program matches T='$T'"
if [ -n "$KSFT_ARGS" ] && [ "$(wc -l < "$stage/tests.list")" -ne 1 ]; then
	die "KSFT_ARGS='$KSFT_ARGS' is for one program, but T='$T' matches $(wc -l < "$stage/tests.list"): $(cut -d' ' -f1 "$stage/tests.list" | tr '\n' ' ')"
fi

# tests.list: "NAME TIMEOUT" per program, NAME relative to /tests.
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

counts=$(python3 "$REPO/scripts/tap-count.py" --known "$REPO/kselftest/intree-known.txt" "$tap") || {
	record "kselftest-$name" 0 1 0
	die "kselftests failed: see $tap and $console"
}
record "kselftest-$name" $counts
read -r p f s k <<<"$counts"
info "kselftests: $p passed, $f failed, $s skipped (of them $k known failures)"
[ "$f" -eq 0 ] || die "kselftests failed: see $tap and $console"
