#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh [VARIANT]: boot the kernel built in $BUILD/VARIANT (SRC=tree:
# $BUILD/tree-VARIANT) to a busybox shell on this terminal (TCG, -smp 2).
# Leave with 'reboot -f' (or Ctrl-A X).
. "$(dirname "$0")/lib.sh"

variant=${1:-default}
guest_arch "$variant"
unset GUEST_TIMEOUT   # timeout(1) would put QEMU in the background: no terminal
out=$BUILD/$(build_name "$variant")
lock "$(src_dir)" "$out"
kernel=$out/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kunit${SRC:+ SRC=$SRC} VARIANT=$variant' first"
root=$out/boot-root
rm -rf "$root"
mkdir -p "$root"
cat > "$root/init.sh" <<'INIT'
echo "pidmap test kernel $(uname -r): try cat pid_max ns_last_pid; leave with reboot -f"
cd /proc/sys/kernel
setsid cttyhack sh
INIT
"$REPO/scripts/initramfs.sh" "$root" "$out/boot-initramfs.cpio.gz"
say "booting $kernel (Ctrl-A X quits QEMU)"
qemu_guest "$kernel" "$out/boot-initramfs.cpio.gz" "" -nographic -serial mon:stdio
