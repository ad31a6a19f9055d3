#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-config.sh NAME: build the test tree out of tree in $BUILD/cfg-NAME
# with a configuration no KUnit variant has, then compile the series' C
# files there with W=1 against pristine 6.12 (lint.sh). NAME is one of:
#   x86_64-defconfig    x86_64 defconfig (no KUnit): 'make prepare', then
#                       every C file of the series in this config, with W=1
#                       ('make check')
#   x86_64-defconfig-vmlinux  the same build, linked ('make check-configs')
#   x86_64-allnoconfig  allnoconfig with EXPERT (so that the options only
#                       EXPERT shows are off too: !MULTIUSER, !NAMESPACES,
#                       !SMP, !PID_NS, ...): full vmlinux link
#   i386-defconfig      32-bit: every object in kernel/, block/, fs/proc/,
#                       init/ and the series' directories
#   x86_64-rt           defconfig + PREEMPT_RT + lockdep + PROVE_RCU: the
#                       same objects
. "$(dirname "$0")/lib.sh"

name=${1:?usage: build-config.sh NAME}
dir=${name%-vmlinux}
out=$BUILD/cfg-$dir
log=$RESULTS/cfg-$name.log
step=cfg-$name
lock "$CHECK" "$out"
rm -f "$RESULTS/$step.counts"
mkdir -p "$out" "$RESULTS"

# What differs from the base config, as scripts/config arguments.
options=() allconfig=
case $name in
x86_64-defconfig)   arch=x86_64 base=defconfig target=files ;;
x86_64-defconfig-vmlinux) arch=x86_64 base=defconfig target=link ;;
x86_64-allnoconfig) arch=x86_64 base=allnoconfig target=link allconfig=CONFIG_EXPERT=y ;;
i386-defconfig)     arch=i386 base=i386_defconfig target=dirs ;;
x86_64-rt)          arch=x86_64 base=defconfig target=dirs
		    options=(-e EXPERT -e PREEMPT_RT -e DEBUG_KERNEL -e PROVE_LOCKING
			     -e PROVE_RCU -e DEBUG_ATOMIC_SLEEP) ;;
*) die "build-config.sh: unknown configuration '$name'" ;;
esac
mk=(make -C "$CHECK" O="$out" ARCH="$arch" CC="ccache gcc" -j"$JOBS")

fail() {
	record "$step" 0 1 0
	grep -E 'error:|Error [0-9]' "$log" | head -20 | sed 's/^/    /' >&2
	die "$name: $1 (log: $log)"
}

# Configure once; again only when the recipe changes.
recipe="$arch $base $allconfig ${options[*]}"
if [ "$(cat "$out/.recipe" 2>/dev/null)" != "$recipe" ] || [ ! -f "$out/.config" ]; then
	say "$name: configuring ($base ${options[*]})"
	rm -f "$out/.recipe"
	# allnoconfig starts from KCONFIG_ALLCONFIG's options, if any.
	echo "$allconfig" > "$out/allconfig.frag"
	KCONFIG_ALLCONFIG=$out/allconfig.frag "${mk[@]}" "$base" > "$log" 2>&1 ||
		fail "$base failed"
	if [ ${#options[@]} -gt 0 ]; then
		"$CHECK/scripts/config" --file "$out/.config" "${options[@]}"
		"${mk[@]}" olddefconfig >> "$log" 2>&1 || fail "olddefconfig failed"
		for o in "${options[@]}"; do
			[ "$o" = -e ] && continue
			grep -q "^CONFIG_$o=y" "$out/.config" ||
				fail "CONFIG_$o did not stick in $out/.config (a dependency is missing)"
		done
	fi
	echo "$recipe" > "$out/.recipe"
fi
! grep -q '^CONFIG_KUNIT=y' "$out/.config" || fail "$base enables CONFIG_KUNIT: not a build without KUnit"
info "$name: $(grep -oE '^(# )?CONFIG_(SMP|PREEMPT_RT|MULTIUSER|PID_NS|USER_NS|PROC_FS|BLOCK)[= ][a-z]*' "$out/.config" |
	sed -e 's/^# CONFIG_\(.*\) is/!\1/' -e 's/^CONFIG_\(.*\)=y/\1/' | tr '\n' ' ')"

# The directories of the series' C files (but other architectures'), and
# the ones the issue names.
dirs=$( { printf '%s\n' kernel block fs/proc init
	  git -C "$CHECK" diff --name-only --diff-filter=AM "$(base_tag)" HEAD -- '*.c' |
		grep -v '^arch/' | xargs -r -n1 dirname; } | sort -u)
# lint.sh reads .prepare-only: which files are in the config is then
# taken from their Makefiles, as no object says so.
rm -f "$out/.prepare-only"
case $target in
link)  say "$name: building vmlinux (log: $log)"; goals=(vmlinux) ;;
dirs)  say "$name: building $(echo $dirs) (log: $log)"; goals=($(printf '%s/ ' $dirs)) ;;
files) say "$name: make prepare (log: $log)"; goals=(prepare); touch "$out/.prepare-only" ;;
esac
start=$(date +%s)
progress "$out"
"${mk[@]}" "${goals[@]}" >> "$log" 2>&1 || { stop_progress; fail "the build failed"; }
stop_progress
info "$name: built in $(( $(date +%s) - start )) s, $(grep -c 'warning:' "$log" || true) warnings in the log"

# New W=1 warnings in the series' files, against pristine 6.12; the
# step counts the build and each file lint.sh checked.
rc=0
NOSPARSE=1 NOKDOC=1 "$REPO/scripts/lint.sh" "cfg-$dir" ARCH="$arch" || rc=$?
lp=0 lf=1
[ ! -f "$RESULTS/lint-cfg-$dir.counts" ] || read -r lp lf _ < "$RESULTS/lint-cfg-$dir.counts"
rm -f "$RESULTS/lint-cfg-$dir.counts"
record "$step" $((1 + lp)) "$lf" 0
exit $rc
