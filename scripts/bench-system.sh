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
# Then -smp 2, -icount, BENCH_ROUNDS boots each: one full listing of /proc
# (getdents64) with 10 processes, one of them with 0, 10,000 and 100,000
# extra threads (BENCH_PROC_SIZES; bench/proclist.c).
# Then -smp 2 under plain TCG (no -icount: multi-threaded TCG runs the two
# vCPUs on two host threads at once, so this row shows contention):
# fork+exit+wait from two processes at once, BENCH_PAR_ROUNDS boots of
# each kernel (default 5), alternated, each the median of 5 rounds of
# BENCH_PAR_FORKS (default 2000) per process. Host time: needs a quiet
# machine.
# Then lock statistics: both trees built again with bench/lockstat.config
# (CONFIG_LOCK_STAT=y), booted with -smp 2 under -icount, count per
# fork+exit+wait the lock acquisitions, tasklist_lock's hold time and the
# classes acquired and contended most.
#   BENCH_PARTS="timing proclist parallel lockstat"  the parts to run
#       (default: all)
#   BENCH_LOCKSTAT_BEFORE=REV      also the lock statistics of the test
#       tree at REV (e.g. HEAD~4: the series without its last patches),
#       in a table of their own against the patched kernel
#       ($RESULTS/bench-lockstat-before.txt)
# The patched kernel is $BUILD/default ('make kunit'); the pristine one is
# built from the base commit in $BUILD/pristine.
. "$(dirname "$0")/lib.sh"
lock "$CHECK" "$WORK/pristine" "$WORK/before" "$BUILD/default" "$BUILD/pristine" \
	"$BUILD/lockstat" "$BUILD/lockstat-pristine" "$BUILD/lockstat-before" "$BUILD/bench-system-root"

ROUNDS=${BENCH_ROUNDS:-2}
SIZES=${BENCH_SIZES:-0 10000 50000}
SMPS=${BENCH_SMP:-1 2}
FORKS=${BENCH_FORKS:-1000}
MANY=${BENCH_MANY:-100000}
PARTS=${BENCH_PARTS:-timing proclist parallel lockstat}
PROC_SIZES=${BENCH_PROC_SIZES:-0 10000 100000}
PAR_ROUNDS=${BENCH_PAR_ROUNDS:-5}
PAR_FORKS=${BENCH_PAR_FORKS:-2000}
BEFORE=${BENCH_LOCKSTAT_BEFORE:-}
patched=$BUILD/default/arch/x86/boot/bzImage
pristine=$BUILD/pristine/arch/x86/boot/bzImage
out=$RESULTS/bench-system.txt
part() { [[ " $PARTS " == *" $1 "* ]]; }
PAR_TABLE="two processes at once, -smp 2, plain TCG (vCPUs in parallel, host time)"

pristine_tree=$(pristine_worktree)
printf 'CONFIG_KUNIT=y\n' > "$BUILD/pristine.kunitconfig"
if part timing || part proclist || part parallel; then
	[ -f "$patched" ] || die "no patched kernel at $patched: run 'make kunit' first"
	say "bench: building pristine $(base_tag) in $BUILD/pristine"
	pristine_build "$RESULTS/bench-pristine.log"
fi

root=$BUILD/bench-system-root
rm -rf "$root"
mkdir -p "$root/bench"
for prog in prio_user pidsys proclist; do
	gcc -static -O2 -Wall -Werror -pthread -o "$root/bench/$prog" "$REPO/bench/$prog.c" ||
		die "bench/$prog.c does not build"
done
# The kernel command line says what to run: pidsys.mode=lockstat,
# pidsys.mode=parallel or neither.
cat > "$root/init.sh" <<INIT
echo 4194304 > /proc/sys/kernel/pid_max
echo 1000000 > /proc/sys/kernel/threads-max
# two mappings per thread stack (stack + guard): 65530 stops at 32765 threads
echo 1000000 > /proc/sys/vm/max_map_count
if grep -q pidsys.mode=lockstat /proc/cmdline; then
	/bench/pidsys lockstat $FORKS
elif grep -q pidsys.mode=proclist /proc/cmdline; then
	for n in $PROC_SIZES; do /bench/proclist \$n; done
elif grep -q pidsys.mode=parallel /proc/cmdline; then
	/bench/pidsys fork $PAR_FORKS 5 "$PAR_TABLE"
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
# alternate ROUNDS SUFFIX SMP QEMU-ARGS APPEND WHAT: ROUNDS rounds of one
# boot of each kernel, pristine first; WHAT goes into the progress line.
alternate() {
	local rounds=$1 suffix=$2 smp=$3 qargs=$4 append=$5 what=$6 r k kernel
	for r in $(seq "$rounds"); do
		for k in pristine patched; do
			kernel=$pristine
			[ "$k" = patched ] && kernel=$patched
			info "round $r/$rounds, -smp $smp$what: $k kernel"
			boot "$k$suffix" "$kernel" "$smp" "$qargs" "$append"
		done
	done
}

part timing && for smp in $SMPS; do
	alternate "$ROUNDS" "" "$smp" "-icount shift=0,sleep=off" "" ""
done
part proclist &&
	alternate "$ROUNDS" -proclist 2 "-icount shift=0,sleep=off" pidsys.mode=proclist ", /proc listing"

# lockstat_build TREE NAME: TREE built with bench/lockstat.config in
# $BUILD/NAME.
lockstat_build() {
	kunit_build "$1" "$BUILD/$2" "$RESULTS/bench-$2.log" "$BUILD/pristine.kunitconfig" \
		"$REPO/kunit/common.config" "$REPO/bench/lockstat.config"
}
part parallel &&
	alternate "$PAR_ROUNDS" -parallel 2 "-accel tcg,thread=multi" pidsys.mode=parallel ", plain TCG"

# Under -icount the hold times are guest instructions: they repeat.
icount="-icount shift=0,sleep=off"
if part lockstat; then
	say "bench: lock statistics (bench/lockstat.config)"
	lockstat_build "$pristine_tree" lockstat-pristine
	lockstat_build "$CHECK" lockstat
	boot pristine-lockstat "$BUILD/lockstat-pristine/arch/x86/boot/bzImage" 2 "$icount" \
		pidsys.mode=lockstat
	boot patched-lockstat "$BUILD/lockstat/arch/x86/boot/bzImage" 2 "$icount" \
		pidsys.mode=lockstat
fi
if part lockstat && [ -n "$BEFORE" ]; then
	rev=$(git -C "$CHECK" rev-parse --verify -q "$BEFORE^{commit}") ||
		die "BENCH_LOCKSTAT_BEFORE=$BEFORE is not a commit of the test tree $CHECK"
	say "bench: lock statistics at $(git -C "$CHECK" log -1 --format='%h %s' "$rev")"
	worktree_ready "$WORK/before" "$rev"
	git -C "$WORK/before" checkout -q -f --detach "$rev"
	lockstat_build "$WORK/before" lockstat-before
	# The table script compares "pristine" with "patched": here the
	# left side is the tree at REV.
	grep '^patched smp=2 .*table="lock' "$out.raw" > "$out.before.raw" || true
	boot before-lockstat "$BUILD/lockstat-before/arch/x86/boot/bzImage" 2 "$icount" \
		pidsys.mode=lockstat > /dev/null
	grep '^before ' "$out.raw" | sed 's/^before /pristine /' >> "$out.before.raw"
	sed -i '/^before /d' "$out.raw"
	{
		echo "left (\"pristine\"): the test tree at $(git -C "$CHECK" log -1 --format='%h %s' "$rev")"
		echo "right (\"patched\"): the whole series"
		python3 "$REPO/scripts/bench-table.py" "$out.before.raw"
	} | tee "$RESULTS/bench-lockstat-before.txt" | sed 's/^/    /'
fi

python3 "$REPO/scripts/bench-table.py" "$out.raw" | tee "$out" | sed 's/^/    /'
