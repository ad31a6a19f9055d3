# SPDX-License-Identifier: GPL-2.0
# CRIU round trip of a session: a session leader with three process
# groups (a pipeline, a single job, a parent holding a zombie). criu check,
# dump (which kills the tree), restore, then every PID, PGID and SID is
# the one it was, the zombie is still a zombie, the programs finish with
# the results they would have had, and nothing is left behind. Once with
# CRIU's clone3() set_tid restore, once with its ns_last_pid fallback.
# timeout: 900
. "$(dirname "$0")/../lib.sh"

step "criu check"
criu check || fail "criu check failed"

# The tree, in DIR: nothing forks while it waits for DIR/go. Its output
# goes to /dev/null: CRIU refuses to restore a file that changed size
# after the dump, and the tree's log would.
start_tree() {
	local dir=$1
	mkdir -p "$dir"
	mkfifo "$dir/idle"
	(cd "$dir" && exec setsid bash -c '
		exec 9<> idle
		set -m
		idle() { until [ -e go ]; do read -r -t 0.2 -u 9; done; }
		{ idle; seq 1 1000; } | awk "{ s += \$1 } END { print \"sum\", s > \"pipeline.result\" }" &
		{ idle; echo done > job.result; } &
		python3 -c "
import os, time
pid = os.fork()
if pid == 0:
    os._exit(7)
while not os.path.exists(\"go\"):
    time.sleep(0.2)
_, st = os.waitpid(pid, 0)
open(\"zombie.result\", \"w\").write(\"status %d\n\" % os.waitstatus_to_exitcode(st))
" &
		wait
		echo finished > session.result
	' < /dev/null > /dev/null 2>&1) &
}

for mode in set_tid ns_last_pid; do
	dir=$SCRATCH/tree-$mode
	start_tree "$dir"
	leader=$!
	# Up: the leader, the pipeline (a subshell and awk), the job, python and its zombie.
	for ((i = 0; i < 600; i++)); do
		session_ids "$leader" > "$dir/before"
		grep -q ' Z ' "$dir/before" && [ "$(wc -l < "$dir/before")" -ge 6 ] && break
		sleep 0.1
	done
	grep -q " Z " "$dir/before" || { cat "$dir/before"; fail "$mode: the tree did not come up"; }
	sleep 1
	session_ids "$leader" > "$dir/before"
	echo "$mode: $(wc -l < "$dir/before") processes in session $leader, $(awk '{ print $3 }' "$dir/before" | sort -u | wc -l) groups"
	criu_roundtrip "$leader" "$mode" "session-$mode"
	session_ids "$leader" > "$dir/after"
	same_ids "$dir/before" "$dir/after" "$mode"
	touch "$dir/go"
	wait_file "$dir/session.result" 120
	[ "$(cat "$dir/pipeline.result")" = "sum 500500" ] || fail "$mode: pipeline: $(cat "$dir/pipeline.result")"
	[ "$(cat "$dir/job.result")" = done ] || fail "$mode: job: $(cat "$dir/job.result")"
	[ "$(cat "$dir/zombie.result")" = "status 7" ] || fail "$mode: zombie: $(cat "$dir/zombie.result")"
	session_gone "$leader"
	echo "$mode: results as without the round trip, session ended"
done
