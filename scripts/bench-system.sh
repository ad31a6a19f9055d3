#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-system.sh: system-level rows, pristine 6.12 against the patched
# kernel, booted the same way (-smp 2, -icount, 6 GiB) and alternated:
# setpriority/getpriority(PRIO_USER) latency for a user that owns one
# thread while 0, 10,000 and 50,000 threads of other users exist.
# The patched kernel is $BUILD/default ('make kunit'); the pristine one is
# built from the base commit with the same kunit/common.config and
# kunit/default.config in $BUILD/pristine.
. "$(dirname "$0")/lib.sh"
lock_work

ROUNDS=${BENCH_ROUNDS:-2}
SIZES=${BENCH_SIZES:-0 10000 50000}
patched=$BUILD/default/arch/x86/boot/bzImage
pristine_tree=$WORK/pristine
pristine=$BUILD/pristine/arch/x86/boot/bzImage
out=$RESULTS/bench-system.txt
[ -f "$patched" ] || die "no patched kernel at $patched: run 'make kunit' first"

if [ ! -d "$pristine_tree" ]; then
	git -C "$TREE" worktree add -q --detach "$pristine_tree" "$(base_tag)"
else
	git -C "$pristine_tree" checkout -q -f --detach "$(base_tag)"
fi
mkdir -p "$BUILD/pristine"
printf 'CONFIG_KUNIT=y\n' > "$BUILD/pristine.kunitconfig"
say "bench: building pristine $(base_tag) in $BUILD/pristine"
progress "$BUILD/pristine"
python3 "$pristine_tree/tools/testing/kunit/kunit.py" build \
	--arch=x86_64 --jobs="$JOBS" --build_dir="$BUILD/pristine" \
	--kunitconfig="$BUILD/pristine.kunitconfig" \
	--kunitconfig="$REPO/kunit/common.config" \
	--kunitconfig="$REPO/kunit/default.config" \
	--make_options="CC=ccache gcc" > "$RESULTS/bench-pristine.log" 2>&1 ||
	die "pristine kernel did not build: see $RESULTS/bench-pristine.log"
stop_progress

root=$BUILD/bench-system-root
rm -rf "$root"
mkdir -p "$root/bench"
gcc -static -O2 -Wall -Werror -pthread -o "$root/bench/prio_user" "$REPO/bench/prio_user.c" ||
	die "bench/prio_user.c does not build"
cat > "$root/init.sh" <<INIT
echo 4194304 > /proc/sys/kernel/pid_max
echo 1000000 > /proc/sys/kernel/threads-max
for n in $SIZES; do /bench/prio_user \$n; done
echo "prio_user done"
INIT
"$REPO/scripts/initramfs.sh" "$root" "$BUILD/bench-system.cpio.gz"

: > "$out.raw"
for r in $(seq "$ROUNDS"); do
	for k in pristine patched; do
		kernel=$pristine
		[ "$k" = patched ] && kernel=$patched
		info "round $r/$ROUNDS: $k kernel, $SIZES threads"
		timeout "${BENCH_TIMEOUT:-1800}" qemu-system-x86_64 -nodefaults -no-reboot \
			-display none -m 6144 -smp 2 -icount shift=0,sleep=off -bios qboot.rom \
			-kernel "$kernel" -initrd "$BUILD/bench-system.cpio.gz" \
			-append "console=ttyS0 kunit.enable=0 panic=-1 quiet" \
			-serial "file:$RESULTS/bench-system-$k.console" < /dev/null ||
			die "$k guest failed: see $RESULTS/bench-system-$k.console"
		tr -d '\r' < "$RESULTS/bench-system-$k.console" | grep '^prio_user threads=' |
			sed "s/^/$k /" | tee -a "$out.raw" | sed 's/^/    /'
		grep -q 'prio_user done' "$RESULTS/bench-system-$k.console" ||
			die "$k guest did not finish: see $RESULTS/bench-system-$k.console"
	done
done
python3 "$REPO/scripts/bench-table.py" "$out.raw" | tee "$out" | sed 's/^/    /'
