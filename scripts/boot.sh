#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh [VARIANT]: boot the patched kernel of $BUILD/VARIANT to a busybox
# shell on this terminal (TCG, -smp 2). Leave with 'reboot -f' (or Ctrl-A X).
. "$(dirname "$0")/lib.sh"

variant=${1:-default}
out=$BUILD/$variant
kernel=$out/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make' first"
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
exec qemu-system-x86_64 -nodefaults -no-reboot -nographic -m 2048 -smp 2 \
	-bios qboot.rom -kernel "$kernel" -initrd "$out/boot-initramfs.cpio.gz" \
	-serial mon:stdio -append "console=ttyS0 kunit.enable=0 panic=-1"
