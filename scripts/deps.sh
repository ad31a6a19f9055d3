#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh [GROUP...]: install whatever the pipeline needs from Debian's
# archive, and only that, then check that every command the scripts call
# is there. GROUP adds packages for one target: 'arm64' (the 64 KiB page
# KUnit kernel of 'make check-configs'), 'clients' (what 'make
# check-clients' runs in its guests), 'mail' (b4, for 'make mail').
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	linux-source-6.12
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	python3 python3-ply python3-git perl git ccache patch rsync
	qemu-system-x86 busybox-static
	libcap-dev
	sparse
	gcc-12-multilib qemu-user liburcu-dev
)
# gcc-12-multilib, not the gcc-multilib metapackage: that one conflicts
# with gcc-12-aarch64-linux-gnu (group arm64), so apt-get would remove
# the cross compiler of make check-configs to install it, and the reverse.
# Every command the scripts (and the kernel's build and headers_install)
# run. A fresh Debian 12 lacks some of them (rsync, for one): checked after
# the install so that CI fails here, naming it, instead of half-way through.
COMMANDS=(
	gcc make ld flex bison bc perl python3 git ccache patch rsync cpio
	gzip xz tar flock timeout sha256sum awk find sparse
	qemu-system-x86_64 qemu-system-i386 qemu-i386 busybox dpkg-query
)
for group in "$@"; do
	case $group in
	arm64)	PACKAGES+=(gcc-aarch64-linux-gnu qemu-system-arm)
		COMMANDS+=(aarch64-linux-gnu-gcc qemu-system-aarch64) ;;
	clients) PACKAGES+=(criu systemd systemd-container procps psmisc util-linux python3)
		COMMANDS+=(criu systemd-nspawn systemd-run ps top pgrep pstree pidof renice ionice unshare setpriv taskset)
		;;
	mail)	PACKAGES+=(b4)
		COMMANDS+=(b4) ;;
	*)	die "deps.sh: unknown group '$group'" ;;
	esac
done

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	info "all ${#PACKAGES[@]} packages present ($PKG $(pkg_version))"
else
	say "installing: ${missing[*]}"
	[ "$(id -u)" -eq 0 ] && SUDO= || SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -q || die "apt-get update failed"
	if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; then
		apt-cache policy "$PKG" | head -3
		die "apt-get install failed for: ${missing[*]}"
	fi
	info "$PKG $(pkg_version)"
fi

absent=()
for c in "${COMMANDS[@]}"; do
	command -v "$c" >/dev/null || absent+=("$c")
done
[ ${#absent[@]} -eq 0 ] ||
	die "commands missing after the install: ${absent[*]} (add their package to PACKAGES in scripts/deps.sh)"
