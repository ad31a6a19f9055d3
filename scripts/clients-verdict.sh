#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# clients-verdict.sh DIR NAME...: the verdict of 'make check-clients' on
# one variant, from the results of its two guests, DIR-pristine and
# DIR-series (clients.sh): tap.txt (clients/run's TAP), console, and per
# scenario NAME/log and NAME/compare/. For each NAME, one line:
#   passed on both       ok on both, and compare/ identical
#   REGRESSION           ok on 6.12 but not on the series, or ok on both
#                        with compare/ outputs that differ
#   fails on both        with the series' reason (its log's last line)
#   fails on 6.12 only   with 6.12's reason
# A scenario with no TAP line on a kernel (the guest stopped before it)
# counts as failed there. Then a line with the four counts, and one per
# kernel bug report (KERNEL_BUGS) on each kernel's console. A report that
# clients/known-6.12-reports.txt names (a bug of 6.12 itself, fixed in
# mainline) is listed with its reason and fails nothing. Exits 1 on a
# regression or another bug report of the series' kernel, else 0.
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: clients-verdict.sh DIR NAME...}
shift
p=$dir-pristine s=$dir-series

# result KERNEL_DIR NAME: ok, fail, or missing.
result() {
	[ -f "$1/tap.txt" ] || { echo missing; return; }
	awk -v n="$2" '$1 == "ok" && $3 == n { r = "ok" } $1 == "not" && $4 == n { r = "fail" }
		END { print r ? r : "missing" }' "$1/tap.txt"
}
# reason KERNEL_DIR NAME: why NAME failed there.
reason() {
	if [ -s "$1/$2/log" ]; then tail -n 1 "$1/$2/log"; else echo "no result (see $1/console)"; fi
}

both=0 regressions=0 fails=0 fixed=0 bugs=0
printf '%-24s %-8s %-8s %s\n' scenario 6.12 series verdict
for name in "$@"; do
	rp=$(result "$p" "$name") rs=$(result "$s" "$name")
	if [ "$rp" = ok ] && [ "$rs" = ok ]; then
		if diff -r "$p/$name/compare" "$s/$name/compare" > "$s/$name/compare.diff" 2>&1; then
			verdict="passed on both"
			both=$((both + 1))
		else
			verdict="REGRESSION: output differs: $(grep -c '^[<>]' "$s/$name/compare.diff") lines in $(grep -c '^diff ' "$s/$name/compare.diff") files ($name/compare.diff)"
			regressions=$((regressions + 1))
		fi
	elif [ "$rp" = ok ]; then
		verdict="REGRESSION: $(reason "$s" "$name")"
		regressions=$((regressions + 1))
	elif [ "$rs" = ok ]; then
		verdict="fails on 6.12 only: $(reason "$p" "$name")"
		fixed=$((fixed + 1))
	else
		verdict="fails on both: $(reason "$s" "$name")"
		fails=$((fails + 1))
	fi
	printf '%-24s %-8s %-8s %s\n' "$name" "$rp" "$rs" "$verdict"
done
echo "$both passed on both, $regressions regressions, $fails fail on both, $fixed fail on 6.12 only"
# reports CONSOLE: one line per distinct kernel bug report (KERNEL_BUGS):
# its first line, then " | " and the first of the next four lines that
# names a source line (a lockdep or RCU splat's location); a tab; then
# those five lines joined by " | ", which the known list is matched
# against.
reports() {
	tr -d '\r' < "$1" | awk -v re="$KERNEL_BUGS" '
		BEGIN { nw = 0 }
		{ for (j = 0; j < nw; j++) if (w[j] > 0) { blk[j] = blk[j] "\n" $0; w[j]-- } }
		$0 ~ re { blk[nw] = $0; w[nw] = 4; nw++ }
		END {
			for (j = 0; j < nw; j++) {
				nb = split(blk[j], b, "\n")
				loc = ""; all = b[1]
				for (i = 2; i <= nb; i++) {
					all = all " | " b[i]
					if (loc == "" && b[i] ~ /[A-Za-z0-9_.\/-]+\.[ch]:[0-9]+/) loc = " | " b[i]
				}
				if (!((b[1] loc) in seen)) { seen[b[1] loc] = 1; print b[1] loc "\t" all }
			}
		}'
}
known=$REPO/clients/known-6.12-reports.txt
for k in pristine series; do
	[ -f "$dir-$k/console" ] || continue
	while IFS=$'\t' read -r summary all; do
		why=
		while IFS=$'\t' read -r re reason; do
			[[ -z $re || $re == \#* ]] && continue
			if grep -qE -- "$re" <<< "$all"; then why=$reason; break; fi
		done < "$known"
		if [ -n "$why" ]; then
			echo "$k: a known report of 6.12: $summary ($why)"
		else
			echo "$k: the console has a kernel bug report: $summary"
			[ "$k" = pristine ] || bugs=$((bugs + 1))
		fi
	done < <(reports "$dir-$k/console")
done
[ $regressions -eq 0 ] && [ $bugs -eq 0 ]
