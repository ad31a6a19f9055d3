#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh ROOT OUT: finish the guest root directory ROOT (busybox,
# mount points, an /init that mounts /proc, /sys, /dev, /dev/pts and /tmp
# and then runs ROOT/init.sh) and pack it as the gzipped cpio OUT.
. "$(dirname "$0")/lib.sh"

root=${1:?usage: initramfs.sh ROOT OUT} out=${2:?usage: initramfs.sh ROOT OUT}
[ -f "$root/init.sh" ] || die "$root/init.sh is missing"
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp /bin/busybox "$root/bin/busybox"
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
. /init.sh
reboot -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
