# SPDX-License-Identifier: GPL-2.0
# systemd as PID 1: the boot reaches the same state, with the same failed
# units, on both kernels, and the kernel logged no bug report.
# timeout: 600
. "$(dirname "$0")/../lib.sh"

step "systemctl is-system-running --wait"
state=$(systemctl is-system-running --wait)
echo "state: $state"
echo "$state" > "$OUT/compare/state.txt"
systemctl --failed --plain --no-legend | awk '{ print $1 }' | sort > "$OUT/compare/failed-units.txt"
echo "failed units: $(tr '\n' ' ' < "$OUT/compare/failed-units.txt")"
journalctl -b -k -p warning --no-pager -o cat > "$OUT/kernel-warnings.txt"
echo "kernel messages at warning or worse: $(wc -l < "$OUT/kernel-warnings.txt")"
! grep -E "$KERNEL_BUGS" "$OUT/kernel-warnings.txt" || fail "the kernel logged a bug report"
case $state in
running|degraded) ;;
*) fail "systemd reached '$state'" ;;
esac
