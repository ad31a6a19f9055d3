#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-tests.sh: the series' selftests the way a user of the patched tree
# runs them, through the kernel's own entry point and nothing of this
# repository:
#   make -C tools/testing/selftests O=OUT TARGETS=pid run_tests
# run inside a QEMU guest (TCG, -smp 2) of the test tree's kernel, whose
# root file system is this machine's own, shared read-only over virtio
# 9p: make, gcc, bash and coreutils' timeout (runner.sh needs
# "timeout --foreground", which busybox lacks) are those of the host. The
# guest builds the programs and kselftest's runner.sh runs them; OUT,
# shared read-write, is $BUILD/run-tests (the kernel's build directory,
# where the host installed the uapi headers, as "make headers" would).
# The kernel is the default variant's config plus
# kselftest/run-tests.config (virtio-pci, 9p). The TAP that run_tests
# prints lands in $RESULTS/kselftest-run-tests.tap; every program must
# say "ok", and no kernel bug report may appear on the console.
#   GUEST_TIMEOUT=N  seconds for the whole guest (default 2400)
. "$(dirname "$0")/lib.sh"

tree=$CHECK
out=$BUILD/run-tests
log=$RESULTS/kselftest-run-tests-build.log
tap=$RESULTS/kselftest-run-tests.tap
console=$RESULTS/kselftest-run-tests.console
targets=$KSELFTEST_OWN
lock "$tree" "$out"
mkdir -p "$RESULTS"
rm -f "$RESULTS/run-tests.counts"
[ -d "$tree/tools/testing/selftests/$targets" ] ||
	die "no tools/testing/selftests/$targets in $tree: series/ lacks its selftests patch"

say "run_tests: building $out (default variant + kselftest/run-tests.config; log: $log)"
kunit_build "$tree" "$out" "$log" "$REPO/kunit/common.config" "$REPO/kunit/default.config" \
	"$REPO/kselftest/run-tests.config"
for opt in CONFIG_9P_FS CONFIG_NET_9P_VIRTIO CONFIG_VIRTIO_PCI; do
	grep -qx "$opt=y" "$out/.config" || die "$out/.config lacks $opt=y (kselftest/run-tests.config)"
done
make -s -C "$tree" ARCH=x86_64 O="$out" headers_install > /dev/null ||
	die "headers_install failed in $out"
rm -rf "$out/kselftest"

# The guest's init: a script on the host's file system, which the guest
# sees at the same path. Everything it writes goes to tmpfs or to $out.
init=$out/run-tests-init
cat > "$init" <<INIT
#!/bin/bash
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
for d in /tmp /run /dev/shm; do mount -t tmpfs tmpfs \$d; done
# What udev would add: runner.sh writes each test's output to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do ln -sf /proc/self/fd/\${i%%:*} /dev/\${i#*:}; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$out" ||
	echo "# run-tests: cannot mount $out" > /dev/ttyS1
exec 3>/dev/ttyS1
echo "# guest: \$(uname -r), \$(nproc) cpus" >&3
echo "# run-tests: make -C tools/testing/selftests O=$out TARGETS=$targets run_tests" >&3
make -C "$tree/tools/testing/selftests" O="$out" TARGETS="$targets" run_tests >&3 2>&1
echo "# run-tests exit: \$?" >&3
dmesg | grep -cE '$KERNEL_BUGS' | sed 's/^/# dmesg warnings: /' >&3
exec 3>&-
sync
INIT
chmod +x "$init"

say "run_tests: booting $out (TCG, -smp 2, the host's root over 9p; console: $console)"
: > "$tap"
start=$(date +%s)
qemu=(qemu-system-x86_64 -nodefaults -no-reboot -display none -m 3072 -smp 2 -bios qboot.rom
	-kernel "$out/arch/x86/boot/bzImage"
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
	-fsdev "local,id=out,path=$out,security_model=none"
	-device virtio-9p-pci,fsdev=out,mount_tag=out
	-append "console=ttyS0 kunit.enable=0 panic=-1 root=/dev/root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144 ro init=$init"
	-serial "file:$console" -serial "file:$tap")
timeout "${GUEST_TIMEOUT:-2400}" "${qemu[@]}" < /dev/null &
pid=$!
tail -n +1 -f --pid=$pid "$tap" | tr -d '\r' |
	grep --line-buffered -E '^(ok|not ok|# (selftest|guest|run-tests))' | sed -u 's/^/    /' || true
rc=0
wait $pid || rc=$?
info "guest ran $(( $(date +%s) - start )) s, qemu exit $rc"

# Programs: run_tests' own lines "ok N selftests: DIR: PROG" against its
# plan "1..N" (a program that skipped as a whole, "ok ... # SKIP", fails
# the step: on this kernel every program has cases to run); cases: the
# harness lines one level in ("# ok N name"), skips counted apart.
tr -d '\r' < "$tap" > "$tap.txt"
read -r plan ok pskip bad cpass cfail cskip < <(awk -v d="$targets" '
	/^1\.\.[0-9]+$/ && !plan { plan = substr($0, 4) }
	index($0, "ok ") == 1 && index($0, "selftests: " d ": ") { if (/# SKIP/) pskip++; else ok++ }
	index($0, "not ok ") == 1 && index($0, "selftests: " d ": ") { bad++ }
	/^# ok [0-9]+ / { if (/# SKIP/) cskip++; else cpass++ }
	/^# not ok [0-9]+ / { cfail++ }
	END { printf "%d %d %d %d %d %d %d\n", plan, ok, pskip, bad, cpass, cfail, cskip }' "$tap.txt")
exit_line=$(sed -n 's/^# run-tests exit: //p' "$tap.txt")
warnings=$(sed -n 's/^# dmesg warnings: //p' "$tap.txt")
info "run_tests: $ok of $plan programs ok, $pskip skipped whole, $bad not ok; cases: $cpass passed, $cfail failed, $cskip skipped"
problem=
[ "$plan" -gt 0 ] || problem="run_tests printed no plan"
[ -n "$problem" ] || [ "$pskip" -eq 0 ] || problem="$pskip programs skipped all their cases"
[ -n "$problem" ] || [ "$ok" -eq "$plan" ] || problem="$((plan - ok)) of $plan programs not ok"
[ -n "$problem" ] || [ "$rc" -eq 0 ] || problem="qemu exited $rc (124: GUEST_TIMEOUT)"
[ -n "$problem" ] || [ "$cpass" -gt 0 ] || problem="no case result reached the TAP"
[ -n "$problem" ] || [ "$cfail" -eq 0 ] || problem="$cfail cases not ok"
[ -n "$problem" ] || [ "$exit_line" = 0 ] || problem="make run_tests exited ${exit_line:-never}"
[ -n "$problem" ] || [ "$warnings" = 0 ] || problem="the kernel logged ${warnings:-?} bug reports"
! grep -qE "$KERNEL_BUGS" "$console" || problem=${problem:-"the console has a kernel bug report"}
if [ -n "$problem" ]; then
	record run-tests "$cpass" $((cfail + 1)) "$cskip"
	die "run_tests: $problem: see $tap and $console"
fi
record run-tests "$cpass" "$cfail" "$cskip"
