#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-system.sh: system-level rows, pristine 6.12 against the patched
# kernel, built from the same kunitconfig fragments, booted the same way
# (-icount, 6 GiB) and alternated, BENCH_ROUNDS boots each:
#   -smp 1 and -smp 2: fork+exit+wait and pthread_create+join per second
#     (one worker per CPU), and the time to start and stop 100,000
#     threads (bench/pidsys.c);
#   -smp 2: setpriority/getpriority(PRIO_USER) latency for a user that
#     owns one thread while 0, 10,000 and 50,000 threads of other users
#     exist (bench/prio_user.c).
# Then lock statistics: both trees built again with kunit/lockstat.config
# (CONFIG_LOCK_STAT=y), booted with -smp 2, count the lock acquisitions
# per fork+exit+wait.
# The patched kernel is $BUILD/default ('make kunit'); the pristine one is
# built from the base commit in $BUILD/pristine.
. "$(dirname "$0")/lib.sh"
lock_work

ROUNDS=${BENCH_ROUNDS:-2}
SIZES=${BENCH_SIZES:-0 10000 50000}
SMPS=${BENCH_SMP:-1 2}
FORKS=${BENCH_FORKS:-1000}
MANY=${BENCH_MANY:-100000}
patched=$BUILD/default/arch/x86/boot/bzImage
pristine=$BUILD/pristine/arch/x86/boot/bzImage
out=$RESULTS/bench-system.txt
[ -f "$patched" ] || die "no patched kernel at $patched: run 'make kunit' first"

pristine_tree=$(pristine_worktree)
printf 'CONFIG_KUNIT=y\n' > "$BUILD/pristine.kunitconfig"
say "bench: building pristine $(base_tag) in $BUILD/pristine"
kunit_build "$pristine_tree" "$BUILD/pristine" "$RESULTS/bench-pristine.log" \
	"$BUILD/pristine.kunitconfig" "$REPO/kunit/common.config" \
	"$REPO/kunit/default.config"

root=$BUILD/bench-system-root
rm -rf "$root"
mkdir -p "$root/bench"
for prog in prio_user pidsys; do
	gcc -static -O2 -Wall -Werror -pthread -o "$root/bench/$prog" "$REPO/bench/$prog.c" ||
		die "bench/$prog.c does not build"
done
# The kernel command line says what to run: pidsys.mode=lockstat or not.
cat > "$root/init.sh" <<INIT
echo 4194304 > /proc/sys/kernel/pid_max
echo 1000000 > /proc/sys/kernel/threads-max
# two mappings per thread stack (stack + guard): 65530 stops at 32765 threads
echo 1000000 > /proc/sys/vm/max_map_count
if grep -q pidsys.mode=lockstat /proc/cmdline; then
	/bench/pidsys lockstat $FORKS
else
	/bench/pidsys fork $FORKS 3
	/bench/pidsys thread $FORKS 3
	/bench/pidsys many $MANY 1
	if [ "\$(nproc)" = 2 ]; then
		for n in $SIZES; do /bench/prio_user \$n; done
	fi
fi
echo "bench done"
INIT
"$REPO/scripts/initramfs.sh" "$root" "$BUILD/bench-system.cpio.gz"

# boot NAME KERNEL SMP QEMU-ARGS APPEND: one guest; its result lines
# ("bench row ...", bench/bench.h), with NAME up to its first "-" and SMP
# in front, go to $out.raw.
boot() {
	local name=$1 kernel=$2 smp=$3 qargs=$4 append=$5 console=$RESULTS/bench-system-$1.console
	timeout "${BENCH_TIMEOUT:-2400}" qemu-system-x86_64 -nodefaults -no-reboot \
		-display none -m 6144 -smp "$smp" $qargs -bios qboot.rom \
		-kernel "$kernel" -initrd "$BUILD/bench-system.cpio.gz" \
		-append "console=ttyS0 kunit.enable=0 panic=-1 quiet $append" \
		-serial "file:$console" < /dev/null ||
		die "$name guest failed: see $console"
	tr -d '\r' < "$console" | grep '^bench row ' |
		sed "s/^/${name%%-*} smp=$smp /" | tee -a "$out.raw" | sed 's/^/    /'
	grep -q 'bench done' "$console" || die "$name guest did not finish: see $console"
	! grep -qE "$KERNEL_BUGS" "$console" || die "$name guest logged a kernel bug: see $console"
}

: > "$out.raw"
for smp in $SMPS; do
	for r in $(seq "$ROUNDS"); do
		for k in pristine patched; do
			kernel=$pristine
			[ "$k" = patched ] && kernel=$patched
			info "round $r/$ROUNDS, -smp $smp: $k kernel"
			boot "$k" "$kernel" "$smp" "-icount shift=0,sleep=off" ""
		done
	done
done

say "bench: lock statistics (kunit/lockstat.config)"
kunit_build "$pristine_tree" "$BUILD/lockstat-pristine" "$RESULTS/bench-lockstat-pristine.log" \
	"$BUILD/pristine.kunitconfig" "$REPO/kunit/common.config" "$REPO/kunit/lockstat.config"
kunit_build "$CHECK" "$BUILD/lockstat" "$RESULTS/bench-lockstat.log" \
	"$BUILD/pristine.kunitconfig" "$REPO/kunit/common.config" "$REPO/kunit/lockstat.config"
boot pristine-lockstat "$BUILD/lockstat-pristine/arch/x86/boot/bzImage" 2 "" pidsys.mode=lockstat
boot patched-lockstat "$BUILD/lockstat/arch/x86/boot/bzImage" 2 "" pidsys.mode=lockstat

python3 "$REPO/scripts/bench-table.py" "$out.raw" | tee "$out" | sed 's/^/    /'
