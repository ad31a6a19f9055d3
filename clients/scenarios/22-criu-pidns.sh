# SPDX-License-Identifier: GPL-2.0
# CRIU round trip of a PID namespace: its init and 50 children. Inside
# the namespace every PID, PGID and SID comes back; the children finish
# and the namespace ends.
# timeout: 900
. "$(dirname "$0")/../lib.sh"

# ns_ids ROOT: every process of the namespace whose init is host PID ROOT,
# seen from inside it: "PID PGID SID STATE COMMAND" (NSpid, NSpgid and
# NSsid of /proc/PID/status), sorted.
ns_ids() {
	local p
	for p in $(ps -e -o pid=,ppid= | awk -v r="$1" '$1 == r || $2 == r { print $1 }'); do
		awk '/^NSpid:/ { pid = $NF } /^NSpgid:/ { pg = $NF } /^NSsid:/ { s = $NF }
		     /^State:/ { st = ($2 == "Z" ? "Z" : "-") } /^Name:/ { n = $2 }
		     END { print pid, pg, s, st, n }' "/proc/$p/status" 2>/dev/null
	done | sort -n
}

for mode in set_tid ns_last_pid; do
	dir=$SCRATCH/pidns-$mode
	mkdir -p "$dir"
	mkfifo "$dir/idle"
	(cd "$dir" && exec unshare --pid --fork setsid bash -c '
		exec 9<> idle
		for ((i = 1; i <= 50; i++)); do
			( until [ -e go ]; do read -r -t 0.2 -u 9; done; echo "$i" > "child.$i" ) &
		done
		echo ready > ready
		wait
		ls child.* | wc -l > ns.result
	' < /dev/null > /dev/null 2>&1) &
	wait_file "$dir/ready" 120
	init=$(ps -e -o pid=,ppid= | awk -v u=$! '$2 == u { print $1 }')
	[ -n "$init" ] || fail "$mode: no init under unshare ($!)"
	ns_ids "$init" > "$dir/before"
	[ "$(wc -l < "$dir/before")" -eq 51 ] || fail "$mode: $(wc -l < "$dir/before") processes in the namespace, not 51"
	[ "$(head -n 1 "$dir/before")" = "1 1 1 - bash" ] || fail "$mode: init is '$(head -n 1 "$dir/before")'"
	criu_roundtrip "$init" "$mode" "pidns-$mode"
	init=$(cat "$SCRATCH/img-pidns-$mode/pidfile")
	ns_ids "$init" > "$dir/after"
	same_ids "$dir/before" "$dir/after" "$mode (inside the namespace)"
	touch "$dir/go"
	wait_file "$dir/ns.result" 120
	[ "$(cat "$dir/ns.result")" = 50 ] || fail "$mode: $(cat "$dir/ns.result") children finished, not 50"
	for ((i = 0; i < 100; i++)); do kill -0 "$init" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$init" 2>/dev/null || fail "$mode: the namespace's init is still there"
	echo "$mode: 50 children finished, namespace ended"
done
