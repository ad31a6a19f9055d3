#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness.sh [check|stress]: the userspace harness the series adds,
# tools/testing/pidmap, built and run on this machine's CPUs (not in QEMU)
# from the source tree (src_dir: the test tree, or SRC=tree).
#   check   (default, 'make check') the model checks (64-bit, 64 KiB pages,
#           32-bit) and the stress programs, plain and under TSan and ASan,
#           a few seconds each; one result per program, step 'harness'
#   stress  ('make stress') 10^8 operations under TSan, then under ASan
#   bench   ('make bench', 'make bench-harness') alloc+free per second by
#           thread count, pidmap against 6.12's IDR path, and the cache
#           lines pidmap's atomics move between threads; a benchmark, it
#           fails only when the programs do not build or run
#           (HARNESS_BENCH_ARGS: more pidmap-bench options, e.g. -r 11)
# The 32-bit programs need gcc-12-multilib and, where the host kernel cannot
# run 32-bit programs, qemu-i386 (qemu-user): deps.sh installs both, and a
# check run without them fails.
. "$(dirname "$0")/lib.sh"

what=${1:-check}
src=$(src_dir)
dir=$src/tools/testing/pidmap
lock "$src"
# make check's step is "harness"; another tree's run (SRC=tree) keeps
# its own log and counts, so it can run beside make check.
step=harness
[ "$src" = "$CHECK" ] || step=harness-$(basename "$src")
log=$RESULTS/$step-$what.log
mkdir -p "$RESULTS"
[ "$what" = check ] && rm -f "$RESULTS/$step.counts"

fail() {
	[ "$what" != check ] || record "$step" 0 1 0
	die "harness: $1 (log: $log)"
}

[ -f "$dir/Makefile" ] || fail "$dir/Makefile is missing: is the tools/testing/pidmap patch in series/?"
say "harness: make -C tools/testing/pidmap $what in $src (log: $log)"
if ! make -C "$dir" -s -j"$JOBS" all > "$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 | sed 's/^/    /' >&2
	fail "the harness did not build"
fi
case $what in
check)
	start=$(date +%s)
	make -C "$dir" -s check >> "$log" 2>&1 && rc=0 || rc=$?
	grep -E '^(ok|not ok) ' "$log" | sed 's/^/    /'
	# Each failure's own lines: the seed to replay it, the TSan report.
	grep -E '^# (FAIL|WARNING: ThreadSanitizer|ERROR: AddressSanitizer|SUMMARY)' "$log" |
		head -20 | sed 's/^/    /' >&2 || true
	p=$(grep -c '^ok ' "$log" || true)
	f=$(grep -c '^not ok ' "$log" || true)
	if grep -q '^# no -m32' "$log"; then
		info "FAIL the 32-bit checks did not run: install gcc-12-multilib and qemu-user (make deps)"
		f=$((f + 1))
	fi
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	record "$step" "$p" "$f" 0
	info "harness: $p passed, $f failed in $(( $(date +%s) - start )) s"
	[ "$f" -eq 0 ] || die "harness: $f failed (log: $log)"
	;;
bench)
	out=$RESULTS/harness-bench.txt
	make -C "$dir" -s bench BENCH_ARGS="${HARNESS_BENCH_ARGS:-}" > "$out" 2>>"$log" ||
		die "harness: the bench failed (log: $log)"
	sed 's/^/    /' "$out"
	info "saved in $out"
	;;
stress)
	# Not a make check step: minutes, not seconds.
	make -C "$dir" stress 2>&1 | tee -a "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || die "harness: stress failed (log: $log)"
	;;
*)
	die "harness.sh: unknown mode '$what' (check, stress or bench)"
	;;
esac
