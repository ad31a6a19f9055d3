#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install whatever the pipeline needs from Debian's archive, and only that.
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	linux-source-6.12
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	python3 python3-ply python3-git perl git ccache
	qemu-system-x86 busybox-static
	libcap-dev
	sparse
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	info "all ${#PACKAGES[@]} packages present ($PKG $(pkg_version))"
	exit 0
fi

say "installing: ${missing[*]}"
[ "$(id -u)" -eq 0 ] && SUDO= || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q || die "apt-get update failed"
if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; then
	apt-cache policy "$PKG" | head -3
	die "apt-get install failed for: ${missing[*]}"
fi
info "$PKG $(pkg_version)"
