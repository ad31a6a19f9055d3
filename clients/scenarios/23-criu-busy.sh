# SPDX-License-Identifier: GPL-2.0
# CRIU restores a tree while other processes fork on the other CPU: the
# tree is made while a forker runs on CPU 1, so its numbers lie among
# those that CPU took, then dumped and restored with the forker still
# running. Only with set_tid: CRIU's ns_last_pid fallback writes the
# cursor and then forks, and a fork in between takes its number on any
# kernel (CRIU's lock on ns_last_pid does not stop other forkers).
# timeout: 900
. "$(dirname "$0")/../lib.sh"

[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
dir=$SCRATCH/busy
mkdir -p "$dir"
mkfifo "$dir/idle"
taskset -c 1 bash -c "until [ -e $dir/stop ]; do (exit 0); done" &
forker=$!
sleep 1
(cd "$dir" && exec taskset -c 0 setsid bash -c '
	exec 9<> idle
	for ((i = 1; i <= 20; i++)); do
		( until [ -e go ]; do read -r -t 0.2 -u 9; done; echo "$i" > "child.$i" ) &
		(exit 0)
	done
	echo ready > ready
	wait
	ls child.* | wc -l > tree.result
' < /dev/null > /dev/null 2>&1) &
leader=$!
wait_file "$dir/ready" 120
session_ids "$leader" > "$dir/before"
[ "$(wc -l < "$dir/before")" -eq 21 ] || fail "$(wc -l < "$dir/before") processes, not 21"
echo "tree: $(awk '{ printf "%s ", $1 }' "$dir/before")"
criu_roundtrip "$leader" set_tid busy
session_ids "$leader" > "$dir/after"
same_ids "$dir/before" "$dir/after" "set_tid beside a forker"
touch "$dir/go"
wait_file "$dir/tree.result" 120
touch "$dir/stop"
wait "$forker"
[ "$(cat "$dir/tree.result")" = 20 ] || fail "$(cat "$dir/tree.result") children finished, not 20"
session_gone "$leader"
echo "20 children finished, session ended"
