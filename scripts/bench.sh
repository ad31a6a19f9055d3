#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: build the bench kernel (bench/bench.config) and boot it
# with -icount so that the guest clock counts instructions, which keeps
# pidmap-vs-IDR ratios stable on a busy host; print the table it logs.
. "$(dirname "$0")/lib.sh"

variant=bench
out=$BUILD/$variant
lock "$CHECK" "$out"
log=$RESULTS/bench.log
table=$RESULTS/bench.txt
mkdir -p "$out" "$RESULTS"
say "bench: building $out (log: $log)"
mapfile -t kc < <(kunitconfigs "$CHECK")
kunit_build "$CHECK" "$out" "$log" "${kc[@]}" "$REPO/kunit/common.config" "$REPO/bench/bench.config"

root=$out/bench-root
rm -rf "$root"
mkdir -p "$root"
echo 'dmesg | grep -c "pidmap_bench: end" > /dev/null' > "$root/init.sh"
"$REPO/scripts/initramfs.sh" "$root" "$out/bench-initramfs.cpio.gz"

say "bench: booting with -smp 2 -icount shift=0,sleep=off (takes minutes)"
timeout "${BENCH_TIMEOUT:-1800}" qemu-system-x86_64 -nodefaults -no-reboot \
	-display none -m 2048 -smp 2 -icount shift=0,sleep=off -bios qboot.rom \
	-kernel "$out/arch/x86/boot/bzImage" -initrd "$out/bench-initramfs.cpio.gz" \
	-append "console=ttyS0 kunit.enable=0 panic=-1" \
	-serial "file:$RESULTS/bench.console" < /dev/null ||
	die "bench guest failed or timed out: see $RESULTS/bench.console"
grep -q 'pidmap_bench: end' "$RESULTS/bench.console" ||
	die "bench did not finish: see $RESULTS/bench.console"
sed -n -E "s/^(\\[ *[0-9.]+\\] )?pidmap_bench: //p" "$RESULTS/bench.console" | tr -d '\r' > "$table"
sed 's/^/    /' "$table"
info "(pidmap and idr: median (min-max); ratio: median (min-max) of per-round pidmap/idr; saved in $table)"
