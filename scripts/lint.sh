#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lint.sh [BUILD [MAKEARG...]]: the C files the series touches, compiled
# with W=1 and sparse (C=2) in the test tree's build $BUILD/BUILD (default:
# the KUnit kernel 'default') and in pristine 6.12 with the same .config;
# fails on any warning the patched build has and the pristine one has not
# (compared without line numbers). Then scripts/kernel-doc -none -Wall on
# the files the series adds or changes in kernel/ and include/linux/, again
# failing only on warnings pristine 6.12 does not have.
#   MAKEARG    e.g. ARCH=i386 (default ARCH=x86_64)
#   NOSPARSE=1 W=1 only;  NOKDOC=1 no kernel-doc (build-config.sh)
. "$(dirname "$0")/lib.sh"

name=${1:-default}
[ $# -gt 0 ] && shift
margs=("${@:-ARCH=x86_64}")
patched=$BUILD/$name
lint=$BUILD/pristine-$name
[ "$name" = default ] && step=lint || step=lint-$name
out=$RESULTS/$step
lock "$CHECK" "$WORK/pristine" "$patched" "$lint"
[ "${NOSPARSE:-0}" = 1 ] && wflags=(W=1) || wflags=(W=1 C=2)
[ -f "$patched/.config" ] || die "no build in $patched: run 'make kunit' first"
[ "${NOSPARSE:-0}" = 1 ] || command -v sparse > /dev/null || die "sparse is missing: run 'make deps'"
rm -f "$RESULTS/$step.counts"
mkdir -p "$out" "$lint"
base=$(base_tag)
# tools/ is not part of the kernel's build (the harness and the selftests
# have their own -Werror builds).
files=$(git -C "$CHECK" diff --name-only --diff-filter=AM "$base" HEAD -- '*.c' |
	grep -v -e '^arch/' -e '^tools/' || true)
[ -n "$files" ] || die "the series touches no C file"

pristine=$(pristine_worktree)
if ! cmp -s "$patched/.config" "$lint/.config"; then
	say "lint: preparing pristine $base in $lint with the .config of $patched"
	cp "$patched/.config" "$lint/.config"
	make -s -j"$JOBS" -C "$pristine" O="$lint" "${margs[@]}" CC="ccache gcc" olddefconfig prepare \
		> "$out/prepare.log" 2>&1 || die "pristine prepare failed: see $out/prepare.log"
fi

# warnings SRC OUT FILE: W=1 + sparse warnings for FILE's object, without
# line and column numbers.
warnings() {
	local src=$1 dir=$2 f=$3 obj=${3%.c}.o
	[ -f "$src/$f" ] || return 0
	rm -f "$dir/$obj"
	# A file that does not compile shows as its errors, counted as new.
	{ make -C "$src" O="$dir" "${margs[@]}" CC="ccache gcc" "${wflags[@]}" "$obj" 2>&1 || true; } |
		{ grep -E 'warning:|error:' || true; } |
		sed -E -e "s#^($src|$dir)/##" -e 's#^\.\./[^ ]*/##' -e 's/:[0-9]+(:[0-9]+)?:/:/' | sort -u
}

# in_config F: is F's object part of $patched's configuration? Its object
# is there after a build; after only 'make prepare' (build-config.sh), the
# obj-y or obj-$(CONFIG_X) line of the Makefile of its directory, or of the
# nearest one above it (kernel/Makefile builds tests/pidmap/pid_kunit.o),
# tells (whether that directory itself is built is not checked).
in_config() {
	local f=$1 d o sym
	[ -f "$patched/${f%.c}.o" ] && return 0
	[ -f "$patched/.prepare-only" ] || return 1
	d=$(dirname "$f") o=$(basename "${f%.c}").o
	while [ ! -f "$CHECK/$d/Makefile" ]; do
		[ "$d" != . ] || return 1
		o=$(basename "$d")/$o d=$(dirname "$d")
	done
	sym=$(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$CHECK/$d/Makefile" |
		awk -v o="$o" '{ for (i = 3; i <= NF; i++) if ($i == o) { print $1; exit } }')
	case $sym in
	'obj-$(CONFIG_'*)
		sym=${sym#'obj-$(CONFIG_'} sym=${sym%%)*}
		grep -qE "^CONFIG_$sym=(y|m)\$" "$patched/.config" ;;
	*-y|*-objs) return 0 ;;
	*) return 1 ;;
	esac
}

say "lint ($name): ${wflags[*]} on the series' C files, patched and pristine"
new=0 okf=0 badf=0
for f in $files; do
	obj=${f%.c}.o
	if ! in_config "$f"; then
		info "skip $f (not in this config)"
		continue
	fi
	base_out=$out/$(echo "$f" | tr / _)
	# The two trees build in their own directories: side by side.
	warnings "$CHECK" "$patched" "$f" > "$base_out.patched" &
	warnings "$pristine" "$lint" "$f" > "$base_out.pristine"
	wait $!
	added=$(comm -23 "$base_out.patched" "$base_out.pristine")
	n=$(printf '%s' "$added" | grep -c . || true)
	old=$(wc -l < "$base_out.pristine")
	if [ "$n" -gt 0 ]; then
		info "FAIL $f: $n new warnings:"
		printf '%s\n' "$added" | sed 's/^/        /'
		new=$((new + n)) badf=$((badf + 1))
	else
		info "ok   $f (pristine has $old)"
		okf=$((okf + 1))
	fi
done
# W=1 leaves different flags behind: rebuild these objects normally next time.
for f in $files; do rm -f "$patched/${f%.c}.o"; done
if [ "${NOKDOC:-0}" = 1 ]; then
	record "$step" "$okf" "$badf" 0
	[ "$new" -eq 0 ] || die "lint ($name): $new new compiler warnings"
	info "lint ($name): no new ${wflags[*]} warnings in $okf files"
	exit 0
fi

say "lint: kernel-doc -none -Wall on the series' kernel/ and include/linux/ files, new warnings only"
docs=$(git -C "$CHECK" diff --name-only --diff-filter=AM "$base" HEAD -- \
	'kernel/*.c' 'include/linux/*.h')
# kdoc TREE FILE: kernel-doc's warnings for FILE, without line numbers.
kdoc() {
	[ -f "$1/$2" ] || return 0
	(cd "$1" && scripts/kernel-doc -none -Wall "$2" 2>&1) |
		sed -E 's/:[0-9]+:/:/' | sort -u
}
kd=0
for f in $docs; do
	w=$(comm -23 <(kdoc "$CHECK" "$f") <(kdoc "$pristine" "$f"))
	[ -z "$w" ] && continue
	echo "$w" | sed 's/^/        /'
	kd=$((kd + $(echo "$w" | wc -l)))
done
info "kernel-doc: $kd new warnings in $(echo "$docs" | wc -w) files"

record "$step" "$okf" $((badf + (kd > 0))) 0
[ "$new" -eq 0 ] && [ "$kd" -eq 0 ] || die "lint: $new new compiler/sparse warnings, $kd kernel-doc warnings"
info "lint: no new W=1 or sparse warnings"
