# SPDX-License-Identifier: GPL-2.0
# A transient unit forks 10,000 short processes; systemd reaps the unit,
# and no zombie or process of it is left.
# timeout: 1200
. "$(dirname "$0")/../lib.sh"

zombies() { ps -e -o stat= | grep -c '^Z' || true; }
before=$(zombies)
first=$(cat /proc/sys/kernel/ns_last_pid)
# Each process a subshell that exits at once: an exec() would read the
# binary and its libraries over 9p, which costs 20 times the fork.
step "systemd-run --wait: 10,000 forks of a process that exits"
systemd-run --wait --quiet --unit=pidmap-forks \
	bash -c 'set -e; for ((i = 0; i < 10000; i++)); do (exit 0); done; echo "$i forks" > '"$SCRATCH/forks" ||
	fail "the transient unit failed"
[ "$(cat "$SCRATCH/forks")" = "10000 forks" ] || fail "the unit did not run its 10,000 forks: $(cat "$SCRATCH/forks")"
last=$(cat /proc/sys/kernel/ns_last_pid)
[ $((last - first)) -ge 10000 ] || fail "ns_last_pid went from $first to $last: not 10,000 forks"
echo "10000 forks done: ns_last_pid $first -> $last"
state=$(systemctl show -p ActiveState --value pidmap-forks.service)
[ "$state" = inactive ] || fail "pidmap-forks.service is '$state' after it ended"
[ ! -e /sys/fs/cgroup/system.slice/pidmap-forks.service ] || fail "the unit's cgroup is still there"
after=$(zombies)
[ "$after" -le "$before" ] || fail "zombies: $before before, $after after"
echo "reaped: unit inactive, cgroup gone, zombies $before -> $after"
