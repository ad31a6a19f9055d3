# SPDX-License-Identifier: GPL-2.0
# systemctl kill reaches every process of a unit's cgroup, also one that
# left the unit's session and process group.
# timeout: 300
. "$(dirname "$0")/../lib.sh"

cg=/sys/fs/cgroup/system.slice/pidmap-kill.service
step "a unit of 7 processes: bash, 5 sleeps, 1 sleep in a session of its own"
systemd-run --quiet --unit=pidmap-kill bash -c \
	'for i in 1 2 3 4 5; do sleep 100000 & done; setsid sleep 100000 & wait' ||
	fail "systemd-run failed"
for ((i = 0; i < 300; i++)); do
	[ "$(wc -l < "$cg/cgroup.procs" 2>/dev/null || echo 0)" -ge 7 ] && break
	sleep 0.1
done
mapfile -t pids < "$cg/cgroup.procs"
[ ${#pids[@]} -eq 7 ] || fail "the unit has ${#pids[@]} processes, not 7"
sessions=$(for p in "${pids[@]}"; do ps -o sid= -p "$p"; done | sort -u | wc -l)
[ "$sessions" -eq 2 ] || fail "its processes are in $sessions sessions, not 2"
step "systemctl kill pidmap-kill"
systemctl kill pidmap-kill.service || fail "systemctl kill failed"
for ((i = 0; i < 300; i++)); do
	alive=0
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
	[ $alive -eq 0 ] && break
	sleep 0.1
done
[ $alive -eq 0 ] || fail "$alive of 7 processes survived systemctl kill"
systemctl reset-failed pidmap-kill.service 2>/dev/null
echo "all 7 processes (2 sessions) ended"
