#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kunit.sh VARIANT [FILTER]: build the test tree in $BUILD/VARIANT with
# the series' own .kunitconfig files in the tree (lib.sh kunitconfigs),
# .kunitconfig, kunit/common.config and kunit/VARIANT.config, and run its
# KUnit suites in QEMU (-smp 2, TCG) through kunit.py. The architecture is
# x86_64 unless the fragment says otherwise in a header line:
#   # arch: i386               kunit.py --arch
#   # cross: aarch64-linux-gnu-  kunit.py --cross_compile (and ccache's CC)
#   # guest: kselftest           the kernel also boots the kselftest guest:
#                                its config files come first (lib.sh)
#   SRC=tree         build the editing tree's working copy, uncommitted
#                    edits included, in $BUILD/tree-VARIANT (SRC=dir: that
#                    tree; default: the test tree, base + series/)
#   KUNIT_ARGS=..    more options for kunit.py run (--run_isolated=suite,
#                    --list_tests, --kernel_args=..., --filter='speed>slow')
#   NAME=n           result name (default: VARIANT, tree-VARIANT with SRC=tree)
#   OUT=dir          build directory (default: $BUILD/NAME)
# The kunit.py command is printed, to be run by hand as well.
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: kunit.sh VARIANT [FILTER_GLOB]}
filter=${2:-}
frag=$REPO/kunit/$variant.config
[ -f "$frag" ] || die "no kunit variant '$variant': $frag is missing"
src=$(src_dir)
name=${NAME:-$(build_name "$variant")}
out=${OUT:-$BUILD/$name}
log=$RESULTS/kunit-$name.log
json=$RESULTS/kunit-$name.json
arch=$(sed -n 's/^# arch: *//p' "$frag")
cross=$(sed -n 's/^# cross: *//p' "$frag")
arch=${arch:-x86_64}
lock "$src" "$out"
mapfile -t kc < <(kunitconfigs "$src")
mapfile -t frags < <(expand_frags "$src" "${kc[@]}" "$REPO/kunit/common.config" "$frag")
frags=("${frags[@]/#/--kunitconfig=}")
mkdir -p "$out" "$RESULTS"
rm -f "$json" "$RESULTS/kunit-$name.counts"

say "KUnit '$name' ($arch): building $out and booting it in QEMU (log: $log)"
# kunit.py hides make's output; say how far the build has got meanwhile.
start=$(date +%s)
progress "$out"

# KUNIT_ARGS is split as the shell would (quotes work: --filter='speed>slow').
eval "kargs=(${KUNIT_ARGS:-})"
# --run_isolated boots one kernel per suite (or test); kunit.py's exit
# status covers them all, but --json and test.log keep only the last one.
isolated=
case " ${kargs[*]} " in *" --run_isolated"*) isolated=1 ;; esac
cmd=(python3 "$src/tools/testing/kunit/kunit.py" run
	--arch="$arch" ${cross:+--cross_compile="$cross"} --jobs="$JOBS"
	--build_dir="$out" --json="$json"
	"${frags[@]}"
	--make_options="CC=ccache ${cross}gcc"
	--qemu_args="-smp 2"
	--timeout="${KUNIT_TIMEOUT:-1200}"
	"${kargs[@]}" ${filter:+"$filter"})
info "$(printf '%q ' "${cmd[@]}")"
rc=0
"${cmd[@]}" > "$log" 2>&1 || rc=$?
stop_progress
case " ${kargs[*]} " in
*" --list_tests"*|*" --list_tests_attr"*)
	grep -vE '^\[[0-9:]+\] ' "$log" || true
	exit "$rc" ;;
esac

# Kernel messages printed asynchronously (input devices probing, the TSC
# calibration) can land between KTAP lines and make kunit.py's parser
# report errors for tests that passed. When that happens, parse again
# without the unindented lines that are not KTAP.
if [ -n "$isolated" ]; then
	# Add up kunit.py's "Ran N tests: passed: P, failed: F, skipped: S"
	# line of each kernel it booted; no own/upstream split here.
	read -r n p f s < <(sed -n 's/.*Testing complete\. Ran \([0-9]*\) tests*:\(.*\)/\1 \2/p' "$log" |
		awk '{ n += $1; for (i = 2; i < NF; i++) { v = $(i + 1); sub(/,/, "", v)
			if ($i == "passed:") p += v; if ($i == "failed:") f += v; if ($i == "skipped:") s += v } }
		END { print n + 0, p + 0, f + 0, s + 0 }')
	grep -vE '^\[[0-9:]+\] *$' "$log" | grep -E 'Starting KUnit Kernel|Testing complete|FAILED|PASSED' | sed 's/^/    /'
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	record "kunit-$name" "$p" "$f" "$s"
	info "KUnit '$name' (isolated): $p passed, $f failed, $s skipped of $n in $(( $(date +%s) - start )) s; no kernel log check: $out/test.log keeps only the last kernel's"
	[ "$rc" -eq 0 ] && [ "$n" -gt 0 ] || die "KUnit '$name' failed (exit $rc): see $log"
	exit 0
fi
if [ "$rc" -ne 0 ] && [ -s "$json" ] && [ -s "$out/test.log" ]; then
	grep -E '^([[:space:]]|KTAP version|TAP version|1\.\.|ok |not ok |# )' \
		"$out/test.log" > "$out/test.ktap.log" || true
	noise=$(( $(wc -l < "$out/test.log") - $(wc -l < "$out/test.ktap.log") ))
	info "kunit.py exit $rc: parsing again without $noise kernel lines ($out/test.ktap.log)"
	rc=0
	python3 "$src/tools/testing/kunit/kunit.py" parse --json="$json" \
		"$out/test.ktap.log" >> "$log" 2>&1 || rc=$?
fi
grep -vE '^\[[0-9:]+\] *$' "$log" | tail -n 40 | sed 's/^/    /'

if [ ! -s "$json" ]; then
	# A build that failed: name the file and line, which kunit.py's tail hides.
	grep -E '(error|warning): |^ERROR: |\*\*\* ' "$log" | head -10 | sed 's/^/    /' >&2 || true
	record "kunit-$name" 0 1 0
	die "KUnit '$name' produced no results (exit $rc): see $log and $out/test.log"
fi
counts=$(python3 "$REPO/scripts/kunit-count.py" --own "$KUNIT_OWN_SUITES" "$json") || {
	record "kunit-$name" 0 1 0
	die "KUnit '$name' ran no test: see $log"
}
read -r p f s op of os <<<"$counts"
# Sanitizer, lockdep and RCU reports do not fail a KUnit case by themselves:
# any in the log fails the run. A case that triggers a warning on purpose
# announces it with "warning is expected next" just before.
bugs=$(awk -v re="$KERNEL_BUGS" '
	/warning is expected next/ { announced = NR }
	$0 ~ re {
		if (announced && NR - announced <= 3 && /WARNING:/) { announced = 0; next }
		n++; print "    kernel: " $0 > "/dev/stderr"
	}
	END { print n + 0 }' "$out/test.log")
if [ "$bugs" -gt 0 ]; then
	info "KUnit '$name': $bugs kernel bug report(s) in $out/test.log"
	f=$((f + 1))
fi
record "kunit-$name" "$p" "$f" "$s" "$op" "$of" "$os"
info "KUnit '$name': $p passed, $f failed, $s skipped (series' own suites: $op passed, $of failed, $os skipped) in $(( $(date +%s) - start )) s"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ] || die "KUnit '$name' failed (exit $rc): see $log and $out/test.log"
