# SPDX-License-Identifier: GPL-2.0
# Helpers of the 'make check-clients' scenarios (clients/scenarios/*.sh),
# sourced inside the guest. A scenario is run as "bash NAME.sh DIR": it
# exits 0 when every check held, and otherwise its last line of output
# says what did not. Files it writes to DIR/compare/ must come out the
# same on 6.12 and on the series (the host compares them).
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8
CLIENTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:?usage: bash SCENARIO.sh DIR}
BIN=$OUT/../bin
# What counts as a kernel bug report: the pattern of scripts/lib.sh.
KERNEL_BUGS=$(sed -n "s/^KERNEL_BUGS='\(.*\)'\$/\1/p" "$CLIENTS/../scripts/lib.sh")
[ -n "$KERNEL_BUGS" ] || { echo "FAIL: no KERNEL_BUGS in scripts/lib.sh"; exit 1; }
# Scratch space on a tmpfs: CRIU's images and the trees' files.
SCRATCH=/run/pidmap-clients/$(basename "$OUT")
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"

fail() {
	echo "FAIL: $*"
	exit 1
}

step() { echo "== $*"; }

# wait_file FILE [SECONDS]: wait until FILE exists and is not empty.
wait_file() {
	local i
	for ((i = 0; i < ${2:-60} * 10; i++)); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	fail "$1 did not appear within ${2:-60} s"
}

# session_ids SID: every thread of every process of session SID, as
# "PID TID PGID SID STATE COMMAND", sorted: what a restore must give back.
session_ids() {
	ps -eL -o pid=,lwp=,pgid=,sid=,stat=,comm= |
		awk -v s="$1" '$4 == s { st = substr($5, 1, 1); print $1, $2, $3, $4, (st == "Z" ? "Z" : "-"), $6 }' |
		sort -n
}

# session_gone SID: no process of session SID is left.
session_gone() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ -z "$(ps -e -o sid= | awk -v s="$1" '$1 == s')" ] && return 0
		sleep 0.1
	done
	fail "session $1 left processes behind: $(ps -e -o pid=,sid=,comm= | awk -v s="$1" '$2 == s' | tr '\n' ' ')"
}

# criu_roundtrip PID MODE NAME: dump the tree rooted at PID (which it
# kills), then restore it detached. MODE is set_tid (CRIU's default on
# 6.12 and later: clone3() with set_tid) or ns_last_pid (CRIU's fallback,
# forced by making clone3() fail with ENOSYS for CRIU: bin/noclone3).
criu_roundtrip() {
	local pid=$1 mode=$2 name=$3 img=$SCRATCH/img-$3 wrap=()
	rm -rf "$img"
	mkdir -p "$img"
	# CRIU caches what it learnt of the kernel; each mode learns again.
	rm -f /run/criu.kdat /run/.criu.kdat
	step "criu dump -t $pid ($name)"
	criu dump -t "$pid" -D "$img" -v4 -o dump.log ||
		{ tail -n 5 "$img/dump.log"; cp "$img/dump.log" "$OUT/$name-dump.log"; fail "criu dump of $name failed"; }
	[ "$mode" = set_tid ] || wrap=("$BIN/noclone3")
	# The dump left a cache of what clone3() could do: learn it again.
	rm -f /run/criu.kdat /run/.criu.kdat
	step "criu restore ($name, $mode)"
	"${wrap[@]}" criu restore -D "$img" -d --pidfile "$img/pidfile" -v4 -o restore.log ||
		{ tail -n 5 "$img/restore.log"; cp "$img/restore.log" "$OUT/$name-restore.log"; fail "criu restore of $name ($mode) failed"; }
	cp "$img/restore.log" "$OUT/$name-$mode-restore.log"
	# Which path CRIU took: the log names clone3() when it used set_tid.
	if grep -q 'Creating process using clone3()' "$img/restore.log"; then
		[ "$mode" = set_tid ] || fail "$name: CRIU used clone3() though it was made to fail"
	else
		[ "$mode" = ns_last_pid ] || fail "$name: CRIU did not use clone3() with set_tid"
	fi
}

# same_ids BEFORE AFTER WHAT: the two lists of session_ids are identical.
same_ids() {
	if ! diff -u "$1" "$2" > "$1.diff"; then
		cat "$1.diff"
		fail "$3: PIDs, TIDs, PGIDs or SIDs differ after restore ($(grep -c '^[-+][0-9]' "$1.diff") lines)"
	fi
	echo "$3: $(wc -l < "$1") threads came back with the same PID, TID, PGID and SID"
}
