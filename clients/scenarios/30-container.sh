# SPDX-License-Identifier: GPL-2.0
# A container: systemd-nspawn runs a PID namespace on the guest's own
# root (--volatile=yes), and unshare --pid --fork --mount-proc another
# one, for what nspawn does not allow (it mounts /proc/sys read-only, so
# pid_max cannot be written from inside it). Inside: pid_max reads what
# the kernel's ABI says (6.12: the one global limit; mainline and the
# series: PID_MAX_LIMIT in a new namespace), it can be lowered from
# inside and numbers stay under it, ps shows only the namespace's
# processes, and the host raising its own pid_max reaches the namespace.
# timeout: 1200
. "$(dirname "$0")/../lib.sh"

kernel=$(sed -n 's/.*pidmap\.kernel=\([a-z]*\).*/\1/p' /proc/cmdline)
# PID_MAX_LIMIT: 4M with 64-bit longs, PID_MAX_DEFAULT (32K) otherwise.
if [ "$(getconf LONG_BIT)" = 64 ]; then limit=$((4 << 20)); else limit=$((32 << 10)); fi
host_max=$(cat /proc/sys/kernel/pid_max)
restore() { echo "$host_max" > /proc/sys/kernel/pid_max; }
trap restore EXIT
case $kernel in
series)   want=$limit ;;
pristine) want=$host_max ;;
*)        fail "pidmap.kernel= is '$kernel' on the command line" ;;
esac

step "systemd-nspawn --volatile=yes -D /"
systemd-nspawn --volatile=yes -D / --register=no --quiet --pipe \
	bash -c 'echo "pid_max $(cat /proc/sys/kernel/pid_max)"; ps -e -o pid=,comm=' > "$SCRATCH/nspawn" 2>&1 ||
	{ cat "$SCRATCH/nspawn"; fail "systemd-nspawn failed"; }
cat "$SCRATCH/nspawn"
[ "$(sed -n 's/^pid_max //p' "$SCRATCH/nspawn")" = "$want" ] ||
	fail "nspawn: pid_max reads $(sed -n 's/^pid_max //p' "$SCRATCH/nspawn"), not $want"
# PID 1 (the shell, or ps that it became) and ps: nothing of the host.
grep -v '^pid_max' "$SCRATCH/nspawn" > "$SCRATCH/nspawn-ps"
[ "$(wc -l < "$SCRATCH/nspawn-ps")" -le 2 ] && ! grep -qvE ' (bash|ps)$' "$SCRATCH/nspawn-ps" ||
	fail "nspawn: ps shows processes of the host"
awk '!/^pid_max/ { print $2 }' "$SCRATCH/nspawn" | sort > "$OUT/compare/nspawn-ps.txt"

# The forks are subshells that exit at once (no exec() over 9p).
step "unshare: lower pid_max to 400 inside, fork 500 times"
unshare --pid --fork --mount-proc bash -c '
	echo 400 > /proc/sys/kernel/pid_max || exit 1
	max=0
	for ((i = 0; i < 500; i++)); do
		(exit 0) & wait $!
		[ $! -gt $max ] && max=$!
	done
	echo "inside $(cat /proc/sys/kernel/pid_max) max $max"
	ps -e -o pid=,comm= > '"$SCRATCH/ps-inside" > "$SCRATCH/lowered" 2>&1 ||
	{ cat "$SCRATCH/lowered"; fail "unshare failed"; }
cat "$SCRATCH/lowered" "$SCRATCH/ps-inside"
read -r _ inside _ max < "$SCRATCH/lowered"
[ "$inside" = 400 ] || fail "pid_max reads $inside inside after writing 400"
[ "$max" -lt 400 ] || fail "a number reached $max with pid_max 400"
# The namespace's init (bash, PID 1, unless it became ps) and ps itself,
# nothing of the host.
[ "$(wc -l < "$SCRATCH/ps-inside")" -le 2 ] && ! grep -qvE ' (bash|ps)$' "$SCRATCH/ps-inside" ||
	fail "ps inside the namespace shows: $(tr '\n' ' ' < "$SCRATCH/ps-inside")"
echo "inside $inside max $max" > "$OUT/compare/lowered.txt"
restore
now=$(cat /proc/sys/kernel/pid_max)
case $kernel in
series)   [ "$now" = "$host_max" ] || fail "writing inside changed the host's pid_max to $now" ;;
pristine) echo "6.12: pid_max is global; writing it inside set the host's, restored" ;;
esac

step "a namespace made while the host's pid_max is 1000, then the host raises it"
echo 1000 > /proc/sys/kernel/pid_max
mkfifo "$SCRATCH/raise"
unshare --pid --fork --mount-proc bash -c '
	read -r _ < '"$SCRATCH/raise"'
	max=0
	for ((i = 0; i < 1500; i++)); do
		(exit 0) & wait $!
		[ $! -gt $max ] && max=$!
	done
	echo "$max"' > "$SCRATCH/raised" 2>&1 &
ns=$!
echo 32768 > /proc/sys/kernel/pid_max
echo go > "$SCRATCH/raise"
wait $ns || { cat "$SCRATCH/raised"; fail "unshare failed"; }
restore
max=$(cat "$SCRATCH/raised")
[ "$max" -gt 1000 ] || fail "after the host raised pid_max to 32768 the namespace's numbers stayed under $max"
echo "namespace's highest number after the raise: $max"
echo "raised: past 1000" > "$OUT/compare/raised.txt"
