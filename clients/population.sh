#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# population.sh BIN OUT: the init of the PID namespace of scenario
# 40-procps (unshare --pid --fork --mount-proc). It starts a known
# population one process at a time (so that its numbers are the same on
# every kernel that hands out numbers in order to a lone forker), then
# runs procps, psmisc and util-linux on it, each tool's output to
# OUT/NN-tool.txt. Waiting never forks: only bash builtins read /proc.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8
bin=$1 out=$2
cd /tmp || exit 1
# 10,000 threads of one user: more than RLIMIT_NPROC may allow.
ulimit -u unlimited 2>/dev/null || ulimit -u "$(ulimit -H -u)"
mkfifo /tmp/idle-$$ && exec 9<> /tmp/idle-$$ && rm -f /tmp/idle-$$
nap() { read -r -t "${1:-0.1}" -u 9; }

# count FIELD VALUE: set $counted to how many processes have VALUE as
# field FIELD of /proc/PID/stat (5: pgid, 6: sid; 2 is the comm, without
# spaces here). Not echoed: a $(...) would fork, and take a number each
# time it waits.
count() {
	local f line a
	counted=0
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null < "$f" || continue
		read -ra a <<< "$line"
		[ "${a[$1 - 1]}" = "$2" ] && counted=$((counted + 1))
	done
}
# execed SID COMM: no process of session SID but its leader is still
# named COMM, the leader's name: every child has run its exec().
execed() {
	local f line a
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null < "$f" || continue
		read -ra a <<< "$line"
		[ "${a[5]}" = "$1" ] && [ "${a[0]}" != "$1" ] && [ "${a[1]}" = "($2)" ] && return 1
	done
	return 0
}
# until_count FIELD VALUE N: wait until count FIELD VALUE reaches N.
until_count() {
	local i
	for ((i = 0; i < 3000; i++)); do
		count "$1" "$2"
		[ "$counted" -ge "$3" ] && return 0
		nap
	done
	echo "population: count $1 $2 did not reach $3" >&2
	exit 1
}
until_none() {
	local i
	for ((i = 0; i < 3000; i++)); do
		count "$1" "$2"
		[ "$counted" -eq 0 ] && return 0
		nap
	done
	echo "population: count $1 $2 did not reach 0" >&2
	exit 1
}
until_file() {
	local i
	for ((i = 0; i < 3000; i++)); do
		[ -s "$1" ] && return 0
		nap
	done
	echo "population: $1 did not appear" >&2
	exit 1
}

# 1. User 2001: a session with three process groups (two jobs and a
#    pipeline).
setpriv --reuid 2001 --regid 2001 --clear-groups setsid bash -c \
	'set -m; sleep 100001 & sleep 100002 & sleep 100003 | cat & wait' &
sid1=$!
until_count 6 "$sid1" 5
until execed "$sid1" bash; do nap; done
# 2. User 2002: a process of 8 threads, and one of 10,000.
setpriv --reuid 2002 --regid 2002 --clear-groups setsid "$bin/threads" 8 /tmp/t8 &
until_file /tmp/t8
setpriv --reuid 2002 --regid 2002 --clear-groups setsid "$bin/threads" 10000 /tmp/t10k &
t10k=$!
until_file /tmp/t10k
# 3. Root: a parent of two zombies, and a stopped process.
python3 -c '
import os, signal
for i in range(2):
    if os.fork() == 0:
        os._exit(i)
open("/tmp/zombies", "w").write("2\n")
signal.pause()' &
zparent=$!
until_file /tmp/zombies
sleep 100004 &
stopped=$!
until read -r c < /proc/$stopped/comm && [ "$c" = sleep ]; do nap; done
kill -STOP $stopped

n=0
run() {
	local name=$1
	shift
	n=$((n + 1))
	{ echo "\$ $*"; "$@" 2>&1; echo "exit $?"; } > "$(printf '%s/%02d-%s.txt' "$out" $n "$name")"
}
# The lines of ps and of the awk it pipes to: their STAT is R or S by chance.
psl() { ps "$@" | awk '$NF != "ps" && $NF != "awk"'; }

run ps-eL psl -eL -o pid,tid,pgid,sid,tty,ni,user,stat,comm
run ps-forest psl -e --forest -o pid,ppid,pgid,sid,stat,args
run pstree pstree -p -n 1
run pgrep-user pgrep -u 2001
run pgrep-session pgrep -s "$sid1"
run pgrep-group pgrep -g "$sid1"
run pgrep-parent pgrep -P 1
run pidof-sleep pidof sleep
run pidof-threads pidof threads
run renice renice -n 7 -u 2002
run renice-ps psl -eL -o pid,tid,ni,user,comm
run ionice-set ionice -c 2 -n 5 -u 2001
run ionice-user ionice -u 2001
run ionice-pids ionice -p $(pgrep -u 2001)
run ionice-other ionice -u 2002
run top-tasks bash -c 'top -b -n 1 | sed -n "s/^Tasks: *\([0-9]*\) total,.* \([0-9]*\) stopped, *\([0-9]*\) zombie/total \1 stopped \2 zombie \3/p"'
# The pipeline's process group ("sleep 100003 | cat"): kill -- -PGID.
pg=$(ps -e -o pgid=,args= | awk '$2 == "sleep" && $3 == 100003 { print $1 }')
run kill-group kill -- "-$pg"
until_none 5 "$pg"
run after-kill-group psl -e -o pid,pgid,sid,stat,comm
run pkill-parent pkill -P "$zparent"
run pkill-session pkill -s "$sid1"
nap 0.5
run after-pkill-session psl -e -o pid,pgid,sid,stat,comm
run pkill-group pkill -g "$t10k"
run pkill-user pkill -u 2002
nap 0.5
kill -CONT $stopped
kill $stopped $zparent 2>/dev/null
wait
run after-all psl -e -o pid,pgid,sid,stat,comm
echo "population: $n outputs" >&2
