#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# clients.sh [VARIANT...]: 'make check-clients'. Builds pristine 6.12 and
# the series from one config (kunit/common.config + clients/clients.config,
# plus kunit/debug.config for the 'debug' variant), boots each in a guest
# whose root is this machine's Debian (9p, read-only, under a tmpfs
# overlay) with systemd as PID 1, runs clients/scenarios/*.sh on both
# (clients/run) and compares: per scenario, passed on both, a regression
# (passes on 6.12, fails on the series, or its compare/ outputs differ),
# fails on both, or fails on 6.12 only. Exits non-zero on a regression,
# or when the series' kernel logs a bug report.
#   VARIANT        default and/or debug (default: both); timing: 'ps -e'
#                  and 'top -b -n 1' with 100,000 threads (THREADS=n) on
#                  both kernels under -icount, and their ratios
#                  ('make bench-clients'; not a test), on one vCPU
#                  (TIMING_SMP=n for more)
#   SCENARIOS=glob only these scenarios (e.g. SCENARIOS='2*')
#   GUEST_TIMEOUT  seconds per guest (default: 3600, debug 7200)
#   KERNELS=series only one of the two kernels (series or pristine): its
#                  scenario results, no comparison (for editing scenarios)
# Results: $RESULTS/clients/VARIANT-KERNEL/ (a directory per scenario, with
# its log and compare/), and the table in $RESULTS/clients/summary.txt.
. "$(dirname "$0")/lib.sh"

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(default debug)
top=$RESULTS/clients
mkdir -p "$top"
rm -f "$RESULTS/clients.counts"

# build VARIANT KERNEL: build the kernel in $out (set here). The timing
# guest boots the default variant's kernel.
build() {
	local variant=${1/timing/default} kernel=$2 src frags=("$REPO/kunit/common.config" "$REPO/clients/clients.config")
	out=$BUILD/clients-$kernel-$variant
	if [ "$variant" = debug ]; then
		# kunit/debug.config without its "guest: kselftest" line: the
		# kselftest guest's fragment would turn INET off.
		grep -vx '# guest: kselftest' "$REPO/kunit/debug.config" > "$BUILD/clients-debug.config"
		frags+=("$BUILD/clients-debug.config")
	fi
	case $kernel in
	series)   src=$CHECK ;;
	pristine) src=$pristine ;;
	esac
	lock "$out"
	say "clients: building $kernel ($variant) in $out"
	kunit_build "$src" "$out" "$RESULTS/clients-$kernel-$variant-build.log" "${frags[@]}"
}

# boot VARIANT KERNEL OUT: run the scenarios in a guest of OUT's kernel;
# for the timing variant, clients/timing under -icount instead.
boot() {
	local variant=$1 kernel=$2 out=$3 dir=$top/$1-$2 rc=0 start extra=() append= smp=2
	if [ "$variant" = debug ]; then
		append=" pidmap.slow=4"
		# q35, not the default i440fx: i440fx's _PRT is an AML While
		# loop, which the debug kernel's ACPI interpreter (KASAN,
		# lockdep, TCG) did not finish within ACPICA's 30-second loop
		# limit. The virtio-9p devices then had no interrupt and the
		# root never mounted. q35's _PRT is a static table.
		extra=(-machine q35)
	fi
	if [ "$variant" = timing ]; then
		# One vCPU: with two, QEMU switches between them on a host
		# timer, and the -icount clock then depends on host time.
		extra=(-icount shift=0,sleep=off)
		smp=${TIMING_SMP:-1}
		append=" pidmap.mode=timing${THREADS:+ pidmap.threads=$THREADS}"
	fi
	rm -rf "$dir"
	mkdir -p "$dir/bin"
	gcc -O2 -Wall -o "$dir/bin/noclone3" "$REPO/clients/src/noclone3.c"
	gcc -O2 -Wall -pthread -o "$dir/bin/threads" "$REPO/clients/src/threads.c"
	say "clients: booting $kernel ($variant) on this machine's root (console: $dir/console)"
	start=$(date +%s)
	# The TAP file exists before tail follows it.
	: > "$dir/tap"
	timeout "${GUEST_TIMEOUT:-$([ "$variant" = debug ] && echo 7200 || echo 3600)}" \
		qemu-system-x86_64 -nodefaults -no-reboot -display none -m 6144 -smp "$smp" -bios qboot.rom "${extra[@]}" \
		-kernel "$out/arch/x86/boot/bzImage" \
		-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
		-fsdev "local,id=out,path=$dir,security_model=none" \
		-device virtio-9p-pci,fsdev=out,mount_tag=out \
		-append "console=ttyS0 kunit.enable=0 panic=-1 root=/dev/root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144 ro init=$REPO/clients/guest-init systemd.unit=pidmap-clients.target systemd.show_status=error pidmap.kernel=$kernel${SCENARIOS:+ pidmap.scenarios=$SCENARIOS}$append${CLIENTS_APPEND:+ $CLIENTS_APPEND}" \
		-serial "file:$dir/console" -serial "file:$dir/tap" < /dev/null &
	local pid=$!
	tail -n +1 -f --pid=$pid "$dir/tap" 2>/dev/null | tr -d '\r' |
		grep --line-buffered -E '^(ok|not ok|# )' | sed -u 's/^/    /' || true
	wait $pid || rc=$?
	info "$kernel ($variant): guest ran $(( $(date +%s) - start )) s, qemu exit $rc"
	tr -d '\r' < "$dir/tap" > "$dir/tap.txt"
	grep -qx '# done' "$dir/tap.txt" || echo "not ok 0 guest # did not finish (qemu exit $rc)" >> "$dir/tap.txt"
}

# timing: the median of each tool's rounds on both kernels, and the
# series/6.12 ratio with its spread (the ratios of the slowest and the
# fastest rounds), to $top/timing.txt.
timing() {
	local f=$top/timing.txt tool
	: > "$f"
	for tool in "ps -e" "top -b -n 1" "ps -e cpu" "top -b -n 1 cpu"; do
		python3 - "$tool" "$top/timing-pristine/timing.txt" "$top/timing-series/timing.txt" >> "$f" <<'PY' ||
import statistics, sys
tool, a, b = sys.argv[1:4]
def rounds(path):
    return sorted(int(l.rsplit(":", 1)[1]) for l in open(path) if l.startswith(tool + ":"))
p, s = rounds(a), rounds(b)
if not p or not s:
    sys.exit(1)
mp, ms = statistics.median(p), statistics.median(s)
print("%-12s 6.12 %12.0f ns (%d-%d)  series %12.0f ns (%d-%d)  series/6.12 %.3f (%.3f-%.3f)" %
      (tool, mp, p[0], p[-1], ms, s[0], s[-1], ms / mp, s[0] / p[-1], s[-1] / p[0]))
PY
			die "timing: no '$tool' rounds in $top/timing-*/timing.txt (see the consoles there)"
	done
	say "clients: ps and top with ${THREADS:-100000} threads, -icount ($f)"
	sed 's/^/    /' "$f"
}

# The trees first, then each build directory as it comes (scripts/lib.sh).
pristine=$WORK/pristine
lock "$CHECK" "$pristine"
pristine=$(pristine_worktree)
regressions=0 both=0 fails=0 bad=0
summary=$top/summary.txt
: > "$summary"
for variant in "${variants[@]}"; do
	case $variant in default|debug|timing) ;; *) die "clients.sh: unknown variant '$variant' (default, debug, timing)" ;; esac
	for kernel in ${KERNELS:-pristine series}; do
		build "$variant" "$kernel"
		boot "$variant" "$kernel" "$out"
	done
	if [ "$variant" = timing ]; then
		timing
		continue
	fi
	if [ -n "${KERNELS:-}" ]; then
		for kernel in $KERNELS; do
			grep -E '^(not )?ok' "$top/$variant-$kernel/tap.txt" | sed "s/^/    $kernel ($variant): /"
			! grep -q '^not ok' "$top/$variant-$kernel/tap.txt" || fails=$((fails + 1))
		done
		continue
	fi
	names=()
	for f in "$REPO"/clients/scenarios/*.sh; do
		name=$(basename "$f" .sh)
		# shellcheck disable=SC2053
		[[ -z ${SCENARIOS:-} || $name == $SCENARIOS ]] && names+=("$name")
	done
	echo "== $variant" >> "$summary"
	"$REPO/scripts/clients-verdict.sh" "$top/$variant" "${names[@]}" >> "$summary" || bad=$((bad + 1))
	read -r n _ _ _ r _ f _ < <(grep 'passed on both,' "$summary" | tail -n 1)
	both=$((both + n)) regressions=$((regressions + r)) fails=$((fails + f))
done
if [ -n "${KERNELS:-}" ]; then
	[ $fails -eq 0 ] || die "clients: scenarios failed on $KERNELS (KERNELS= set: no comparison)"
	exit 0
fi
say "clients: summary ($summary)"
sed 's/^/    /' "$summary"
record clients "$both" "$regressions" "$fails"
[ $bad -eq 0 ] || die "clients: a regression against 6.12, or a kernel bug report of the series (see $summary)"
