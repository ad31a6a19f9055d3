# SPDX-License-Identifier: GPL-2.0
# CRIU round trip of a process of 16 threads: every TID comes back, and
# the threads finish their count (15 threads x 100 rounds = 1500).
# timeout: 900
. "$(dirname "$0")/../lib.sh"

for mode in set_tid ns_last_pid; do
	dir=$SCRATCH/threads-$mode
	mkdir -p "$dir"
	(cd "$dir" && exec setsid "$BIN/threads" 16 state 100 go < /dev/null > log 2>&1) &
	pid=$!
	wait_file "$dir/state" 60
	[ "$(cat "$dir/state")" = "ready 16" ] || fail "$mode: $(cat "$dir/state")"
	session_ids "$pid" > "$dir/before"
	[ "$(wc -l < "$dir/before")" -eq 16 ] || fail "$mode: $(wc -l < "$dir/before") threads, not 16"
	criu_roundtrip "$pid" "$mode" "threads-$mode"
	session_ids "$pid" > "$dir/after"
	same_ids "$dir/before" "$dir/after" "$mode"
	rm -f "$dir/state"
	touch "$dir/go"
	wait_file "$dir/state" 120
	[ "$(cat "$dir/state")" = "sum 1500" ] || fail "$mode: $(cat "$dir/state"), not sum 1500"
	session_gone "$pid"
	echo "$mode: sum 1500, process ended"
done
