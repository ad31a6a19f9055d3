# SPDX-License-Identifier: GPL-2.0
# procps, psmisc and util-linux on a known population in a PID namespace
# of its own (clients/population.sh): users, sessions, process groups,
# threads (a process of 10,000), zombies, a stopped process. Every tool's
# output goes to compare/: the host requires it to be identical on 6.12
# and on the series (numbers included, as both hand them out in order to
# a lone forker; no times are printed).
# timeout: 1800
. "$(dirname "$0")/../lib.sh"

step "the population and the tools (clients/population.sh)"
unshare --pid --fork --mount-proc "$CLIENTS/population.sh" "$BIN" "$OUT/compare" ||
	fail "population.sh failed"
n=$(find "$OUT/compare" -name '*.txt' | wc -l)
[ "$n" -ge 20 ] || fail "only $n tool outputs"
threads=$(awk '$NF == "threads"' "$OUT/compare/"*-ps-eL.txt | wc -l)
[ "$threads" -eq 10008 ] || fail "ps -eL shows $threads threads of 'threads', not 10008"
niced=$(awk '$4 == 2002 && $3 == 7' "$OUT/compare/"*-renice-ps.txt | wc -l)
[ "$niced" -eq 10008 ] || fail "renice -u 2002 reached $niced of 10008 threads"
echo "$n tool outputs; 10008 threads listed and reniced"
