// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.pid_max per PID namespace.
 *
 * /proc/sys/kernel/pid_max shows the limit of the PID namespace the
 * reader lives in. A new namespace starts at PID_MAX_LIMIT, whatever its
 * parent's value (upstream's d385c8bceb14); the owner of a namespace
 * (CAP_SYS_ADMIN in the user namespace that owns it) may set it, also
 * above its parent's. A new process gets a number in
 * every namespace from its own up to the initial one, and each is below
 * that namespace's limit: an ancestor's limit still bounds how many
 * processes a child namespace can hold.
 *
 * new_ns_limit: a new namespace reads the highest value pid_max accepts,
 *	not its parent's; a write inside it changes neither the parent nor
 *	the initial namespace.
 * host_raise: a namespace made while its parent's limit was low gets the
 *	room once the parent raises it, with no write of its own.
 * simple: pid_max written in a namespace bounds its numbers across a
 *	wrap.
 * nested_limit: an inner namespace with a higher limit than its parent
 *	holds fewer processes than the parent's limit.
 * nested: upstream's scenario as it is: the parent holds outer - 4
 *	zombies and the inner namespace's init, so exactly one number is
 *	left: the inner namespace's first fork() gets it, the second fails
 *	with EAGAIN although the inner one has room; the inner numbers then
 *	wrap below the inner limit.
 * full_range_moving: a lone forker moved to another CPU before each
 *	fork() fills a fresh namespace: it holds pid_max - 2 children (every
 *	number but 0 and its own) before EAGAIN, and gets them in order.
 * owner_only: a user namespace's root may set pid_max of a PID namespace
 *	its user namespace owns, and may not set the initial namespace's.
 * ns_last_pid: writes above the namespace's own pid_max fail with
 *	EINVAL; pid_max - 2 gives pid_max - 1, then the numbers wrap.
 * set_tid: clone3() set_tid at or above a level's limit fails with
 *	EINVAL, at that level or an ancestor's; below it, it gets the number.
 * lowered_below_live: lowering pid_max leaves a process with a higher
 *	number alive and reapable; new numbers are below the new limit.
 * windows_every_level: two CPUs forking at once in an inner namespace
 *	with a limited parent: every number, at both levels, stays below
 *	its namespace's limit.
 *
 * The limits are derived from the smallest value pid_max accepts, as the
 * kernel computes it: max(RESERVED_PIDS + 1, 8 * possible CPUs). All
 * tests need root; they skip without it.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_PID	/* util.h defines FIXTURE(pid) */
#include "util.h"

#define NS_LAST_PID	"/proc/sys/kernel/ns_last_pid"
#define PIDS_PER_CPU_MIN	8	/* include/linux/threads.h */

/* CPUs in /sys/devices/system/cpu/possible ("0-3,8-11"). */
static int possible_cpus(void)
{
	char buf[256], *p = buf;
	int n = 0;

	if (read_text("/sys/devices/system/cpu/possible", buf, sizeof(buf)) <= 0)
		return 1;
	while (*p >= '0' && *p <= '9') {
		long lo = strtol(p, &p, 10), hi = lo;

		if (*p == '-')
			hi = strtol(p + 1, &p, 10);
		n += hi - lo + 1;
		if (*p != ',')
			break;
		p++;
	}
	return n ? n : 1;
}

/* The smallest value kernel.pid_max accepts on this machine. */
static long pid_max_min(void)
{
	long cpu_min = PIDS_PER_CPU_MIN * possible_cpus();

	return cpu_min > RESERVED_PIDS + 1 ? cpu_min : RESERVED_PIDS + 1;
}

/* What each scenario is told: the limits it sets, and a result. */
struct limits {
	long outer, inner;
	long init_max;		/* pid_max of the initial namespace */
};

/* In a helper: set pid_max of the caller's namespace and read it back. */
static void set_pid_max(long v)
{
	long got;

	CHECK_EQ(write_long(PID_MAX, v), 0);
	CHECK_EQ(read_long(PID_MAX, &got), 0);
	CHECK_EQ(got, v);
}

/*
 * Fork a child that exits at once and reap it; in the child, @check(@arg)
 * decides the exit code. The child's pid, or -errno.
 */
static pid_t fork_checked(int (*check)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(check ? check(arg) : 0);
	if (pid < 0)
		return -errno;
	status = wait_exit_ms(pid, PID_TIMEOUT_MS);
	if (status != 0) {
		fprintf(stderr, "# pid %d: child %d exited with %d\n",
			getpid(), pid, status);
		return -ECHILD;
	}
	return pid;
}

static void release_all(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		CHECK_EQ(wait_exit_ms(pids[i], PID_TIMEOUT_MS), 128 + SIGKILL);
}

/* ------------------------------------------------------------------ */

/* The highest value pid_max accepts: PID_MAX_LIMIT, found by writing. */
static long pid_max_limit(void)
{
	long lo = pid_max_min(), hi = 1L << 30;

	/* Largest value that writes: the sysctl refuses the rest. */
	while (lo < hi) {
		long mid = lo + (hi - lo + 1) / 2;

		if (write_long(PID_MAX, mid) == 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static int new_ns_inner(void *arg)
{
	struct limits *l = arg;
	long v;

	/* Not the parent's value (l->outer), nor the initial one's. */
	CHECK_EQ(read_long(PID_MAX, &v), 0);
	CHECK(v > l->init_max);
	CHECK_EQ(pid_max_limit(), v);
	set_pid_max(l->inner);
	return 0;
}

static int new_ns_outer(void *arg)
{
	struct limits *l = arg;
	long v, limit;

	CHECK_EQ(read_long(PID_MAX, &v), 0);
	CHECK(v > l->init_max);
	limit = pid_max_limit();
	CHECK_EQ(limit, v);
	set_pid_max(l->outer);
	CHECK_EQ(run_in_pidns(new_ns_inner, l, NS_TIMEOUT_S), 0);
	/* The child's write stayed in the child. */
	CHECK_EQ(read_long(PID_MAX, &v), 0);
	CHECK_EQ(v, l->outer);
	return 0;
}

TEST_F_TIMEOUT(pid, new_ns_limit, 200)
{
	struct limits l;
	long v;

	l.init_max = pid_max_min() + 1000;
	l.outer = pid_max_min() + 100;
	l.inner = pid_max_min() + 200;
	SET_PID_MAX(l.init_max);
	if (!RUN_IN_PIDNS(new_ns_outer, &l, NS_TIMEOUT_S))
		return;
	ASSERT_EQ(0, read_long(PID_MAX, &v));
	ASSERT_EQ(l.init_max, v);
}

/* ------------------------------------------------------------------ */

/*
 * Run @fn(@arg) as the init of a new PID namespace that is a direct child
 * of the caller, as upstream's pid_max.c does, so that the caller's
 * namespace spends one number on it; wait for it. What @fn returned, or
 * -1.
 */
static int clone_ns(int (*fn)(void *), void *arg)
{
	static long stack[(1 << 20) / sizeof(long)];
	pid_t pid;

	/* glibc's clone() aligns the top of the stack as the ABI wants. */
	pid = clone(fn, (char *)stack + sizeof(stack), CLONE_NEWPID | SIGCHLD, arg);
	if (pid < 0)
		return -1;
	return wait_exit_ms(pid, NS_TIMEOUT_S * 1000);
}

struct raise {
	struct limits l;
	int ready[2], go[2];
};

static int host_raise_inner(void *arg)
{
	struct raise *r = arg;
	long n = r->l.outer + 50, i, v;
	pid_t *pids = calloc(n, sizeof(*pids));
	char c = 0;

	CHECK(pids);
	CHECK_EQ(read_long(PID_MAX, &v), 0);
	CHECK(v > r->l.outer);
	CHECK_EQ(write(r->ready[1], &c, 1), 1);
	CHECK_EQ(read(r->go[0], &c, 1), 1);
	/* More processes than the parent's limit was when we were made. */
	for (i = 0; i < n; i++) {
		pids[i] = spawn_pauser();
		CHECK(pids[i] > 0);
	}
	release_all(pids, n);
	free(pids);
	return 0;
}

static int host_raise_outer(void *arg)
{
	struct raise *r = arg;
	pid_t ns;
	char c;

	set_pid_max(r->l.outer);
	CHECK_EQ(pipe(r->ready), 0);
	CHECK_EQ(pipe(r->go), 0);
	ns = fork();
	CHECK(ns >= 0);
	if (ns == 0)
		_exit(clone_ns(host_raise_inner, r));
	CHECK_EQ(read(r->ready[0], &c, 1), 1);
	/* The "host" raises its limit after the namespace was made. */
	set_pid_max(r->l.inner);
	CHECK_EQ(write(r->go[1], &c, 1), 1);
	CHECK_EQ(wait_exit_ms(ns, NS_TIMEOUT_S * 1000), 0);
	return 0;
}

TEST_F_TIMEOUT(pid, host_raise, 200)
{
	struct raise r = {
		.l.outer = pid_max_min() + 100,
		.l.inner = pid_max_min() + 300,
	};

	RUN_IN_PIDNS(host_raise_outer, &r, NS_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */

static int simple_ns(void *arg)
{
	struct limits *l = arg;
	long i;

	set_pid_max(l->inner);
	for (i = 0; i < l->inner + 1; i++) {
		pid_t pid = fork_checked(NULL, NULL);

		CHECK(pid > 0);
		CHECK(pid < l->inner);
	}
	return 0;
}

TEST_F_TIMEOUT(pid, simple, 200)
{
	struct limits l = { .inner = pid_max_min() + 200 };

	RUN_IN_PIDNS(simple_ns, &l, NS_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */

/* Hold processes until fork() fails; how many, and fork()'s errno. */
static int hold_until_full(pid_t *pids, int max, int *err)
{
	int n;

	for (n = 0; n < max; n++) {
		pids[n] = spawn_pauser();
		if (pids[n] < 0) {
			*err = -pids[n];
			return n;
		}
	}
	*err = 0;
	return n;
}

static int nested_limit_inner(void *arg)
{
	struct limits *l = arg;
	pid_t *pids = calloc(l->inner, sizeof(*pids));
	int n, err;

	CHECK(pids);
	set_pid_max(l->inner);
	n = hold_until_full(pids, l->inner, &err);
	CHECK_EQ(err, EAGAIN);
	/* The parent's numbers ran out first: below its limit. */
	CHECK(n < l->outer);
	release_all(pids, n);
	free(pids);
	return 0;
}

static int nested_limit_outer(void *arg)
{
	struct limits *l = arg;

	set_pid_max(l->outer);
	return run_in_pidns(nested_limit_inner, l, NS_TIMEOUT_S);
}

TEST_F_TIMEOUT(pid, nested_limit, 200)
{
	struct limits l = {
		.outer = pid_max_min() + 100,
		.inner = pid_max_min() + 200,
	};

	RUN_IN_PIDNS(nested_limit_outer, &l, NS_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */

static int nested_inner(void *arg)
{
	struct limits *l = arg;
	pid_t first, second;
	long i;

	/* Inner limit above the outer one: the outer still bounds. */
	set_pid_max(l->inner);
	first = fork();
	if (first == 0)
		_exit(0);
	if (first < 0) {
		fprintf(stderr, "# the last number of the parent namespace was not handed out\n");
		return 20;
	}
	second = fork();
	if (second == 0)
		_exit(0);
	CHECK_EQ(wait_exit_ms(first, PID_TIMEOUT_MS), 0);
	CHECK(second < 0);
	CHECK_EQ(errno, EAGAIN);

	for (i = 0; i < l->inner + 10; i++) {
		pid_t pid = fork_checked(NULL, NULL);

		CHECK(pid > 0);
		CHECK(pid < l->inner);
	}
	return 0;
}

static int nested_outer(void *arg)
{
	struct limits *l = arg;
	pid_t *pids = calloc(l->outer, sizeof(*pids));
	int n, rc;

	CHECK(pids);
	set_pid_max(l->outer);
	/*
	 * outer - 4 zombies: with this init, the inner namespace's init and
	 * 0, one number is left for the inner namespace's first process.
	 */
	for (n = 0; n < l->outer - 4; n++) {
		pids[n] = fork();
		CHECK(pids[n] >= 0);
		if (pids[n] == 0)
			_exit(0);
	}
	rc = clone_ns(nested_inner, l);
	for (n = 0; n < l->outer - 4; n++)
		CHECK_EQ(wait_exit_ms(pids[n], PID_TIMEOUT_MS), 0);
	free(pids);
	return rc;
}

TEST_F_TIMEOUT(pid, nested, 200)
{
	struct limits l = {
		.outer = pid_max_min() + 100,
		.inner = pid_max_min() + 200,
	};

	RUN_IN_PIDNS(nested_outer, &l, NS_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */

static int full_range_ns(void *arg)
{
	struct limits *l = arg;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), n, out_of_order = 0;
	pid_t *pids = calloc(l->outer, sizeof(*pids));

	CHECK(pids);
	if (ncpu < 2)
		return NS_ONE_CPU;
	set_pid_max(l->outer);
	for (n = 0; n < l->outer; n++) {
		CHECK(run_on_cpu(n % ncpu));
		pids[n] = spawn_pauser();
		if (pids[n] < 0)
			break;
		if (n && pids[n] != pids[n - 1] + 1)
			out_of_order++;
	}
	CHECK(n < l->outer);
	CHECK_EQ(pids[n], -EAGAIN);
	if (n != l->outer - 2 || out_of_order)
		fprintf(stderr, "# %ld children before EAGAIN (want %ld), %ld out of order\n",
			n, l->outer - 2, out_of_order);
	CHECK_EQ(n, l->outer - 2);
	CHECK_EQ(out_of_order, 0);
	release_all(pids, n);
	free(pids);
	return 0;
}

TEST_F_TIMEOUT(pid, full_range_moving, 200)
{
	struct limits l = { .outer = pid_max_min() + 100 };

	RUN_IN_PIDNS(full_range_ns, &l, NS_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */

static int owner_only_ns(void *arg)
{
	struct limits *l = arg;

	set_pid_max(l->inner);
	return 0;
}

/* Become root of a new user namespace, as uid/gid UID_A outside it. */
static void enter_userns(void)
{
	char map[32];

	snprintf(map, sizeof(map), "0 %d 1", UID_A);
	CHECK_EQ(unshare(CLONE_NEWUSER), 0);
	CHECK_EQ(write_text("/proc/self/setgroups", "deny"), 0);
	CHECK_EQ(write_text("/proc/self/uid_map", map), 0);
	CHECK_EQ(write_text("/proc/self/gid_map", map), 0);
	CHECK_EQ(geteuid(), 0);
}

TEST_F_TIMEOUT(pid, owner_only, 200)
{
	struct limits l = { .inner = pid_max_min() + 200 };
	pid_t test = getpid(), pid;
	long v;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		die_with_parent(test);
		CHECK_EQ(setgroups(0, NULL), 0);
		CHECK_EQ(setgid(UID_A), 0);
		CHECK_EQ(setuid(UID_A), 0);
		/* Changing uids made /proc/self root's: make it ours again. */
		CHECK_EQ(prctl(PR_SET_DUMPABLE, 1), 0);
		/* Unprivileged: not the initial namespace's owner. */
		CHECK_EQ(write_long(PID_MAX, pid_max_min()), -EACCES);
		enter_userns();
		/* Root of a user namespace that does not own this one. */
		CHECK_EQ(write_long(PID_MAX, pid_max_min()), -EACCES);
		/* A PID namespace of its own: its owner. */
		_exit(run_in_pidns(owner_only_ns, &l, NS_TIMEOUT_S));
	}
	ASSERT_EQ(0, wait_exit_ms(pid, (NS_TIMEOUT_S + 10) * 1000));
	ASSERT_EQ(0, read_long(PID_MAX, &v));
	ASSERT_EQ(self->pid_max, v);
}

/* ------------------------------------------------------------------ */

static int ns_last_pid_ns(void *arg)
{
	struct limits *l = arg;
	long i;

	set_pid_max(l->inner);
	CHECK_EQ(write_long(NS_LAST_PID, l->inner + 1), -EINVAL);
	CHECK_EQ(write_long(NS_LAST_PID, l->init_max), -EINVAL);
	CHECK_EQ(write_long(NS_LAST_PID, l->inner - 2), 0);
	CHECK_EQ(fork_checked(NULL, NULL), l->inner - 1);
	for (i = 0; i < 2 * (l->inner - RESERVED_PIDS); i++) {
		pid_t pid = fork_checked(NULL, NULL);

		CHECK(pid >= RESERVED_PIDS);
		CHECK(pid < l->inner);
	}
	return 0;
}

TEST_F_TIMEOUT(pid, ns_last_pid, 200)
{
	struct limits l = { .inner = pid_max_min() + 50 };

	if (access(NS_LAST_PID, F_OK))
		SKIP(return, "no %s (CONFIG_CHECKPOINT_RESTORE)", NS_LAST_PID);
	/* The initial namespace's limit is higher: the inner one applies. */
	l.init_max = self->pid_max;
	ASSERT_LT(l.inner + 1, l.init_max);
	RUN_IN_PIDNS(ns_last_pid_ns, &l, NS_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */

static int set_tid_ns(void *arg)
{
	struct limits *l = arg;
	pid_t tid[2];

	set_pid_max(l->outer);
	/* This namespace's level. */
	tid[0] = l->outer;
	CHECK_EQ(try_tids(tid, 1, 0), -EINVAL);
	tid[0] = l->outer - 1;
	CHECK_EQ(try_tids(tid, 1, 0), l->outer - 1);

	/* A new namespace below: the limit of its parent level applies. */
	tid[0] = 1;
	tid[1] = l->outer;
	CHECK_EQ(try_tids(tid, 2, CLONE_NEWPID), -EINVAL);
	tid[1] = l->outer + 1000;
	CHECK_EQ(try_tids(tid, 2, CLONE_NEWPID), -EINVAL);
	tid[1] = l->outer - 2;
	CHECK(try_tids(tid, 2, CLONE_NEWPID) == l->outer - 2);
	return 0;
}

TEST_F_TIMEOUT(pid, set_tid, 200)
{
	struct limits l = { .outer = pid_max_min() + 50 };

	RUN_IN_PIDNS(set_tid_ns, &l, NS_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */

static int lowered_ns(void *arg)
{
	struct limits *l = arg;
	pid_t tid = l->outer + 1000, high, pid;
	long i;

	/* A process far above the limit to come. */
	high = clone3_tids(&tid, 1, 0, NULL);
	if (high == 0) {
		for (;;)
			pause();
	}
	CHECK_EQ(high, tid);

	set_pid_max(l->outer);
	CHECK_EQ(kill(high, 0), 0);
	for (i = 0; i < 2 * (l->outer - RESERVED_PIDS); i++) {
		pid = fork_checked(NULL, NULL);
		CHECK(pid > 0);
		CHECK(pid < l->outer);
	}
	/* Its number is not given again, and the process is reaped. */
	CHECK_EQ(try_tids(&tid, 1, 0), -EINVAL);
	CHECK_EQ(kill(high, SIGKILL), 0);
	CHECK_EQ(wait_exit_ms(high, PID_TIMEOUT_MS), 128 + SIGKILL);
	return 0;
}

TEST_F_TIMEOUT(pid, lowered_below_live, 200)
{
	struct limits l = { .outer = pid_max_min() + 50 };

	RUN_IN_PIDNS(lowered_ns, &l, NS_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */

/*
 * The child's numbers as /proc/self/status gives them from the initial
 * namespace's /proc: NSpid: <initial> <outer> <inner>.
 */
static int check_nspid(void *arg)
{
	struct limits *l = arg;
	char buf[4096], *p;
	long nr[3];
	int i;

	if (read_text("/proc/self/status", buf, sizeof(buf)) <= 0)
		return 10;
	p = strstr(buf, "NSpid:");
	if (!p)
		return 11;
	p += strlen("NSpid:");
	for (i = 0; i < 3; i++)
		nr[i] = strtol(p, &p, 10);
	if (nr[1] < 1 || nr[1] >= l->outer)
		return 12;
	if (nr[2] < 1 || nr[2] >= l->inner)
		return 13;
	return 0;
}

static int windows_worker(struct limits *l, int cpu)
{
	long i;

	CHECK(run_on_cpu(cpu));
	for (i = 0; i < 4 * (l->outer - RESERVED_PIDS); i++) {
		pid_t pid = fork_checked(check_nspid, l);

		CHECK(pid > 0);
		CHECK(pid < l->inner);
	}
	return 0;
}

static int windows_inner(void *arg)
{
	struct limits *l = arg;
	pid_t w[2];
	int cpu;

	set_pid_max(l->inner);
	for (cpu = 0; cpu < 2; cpu++) {
		w[cpu] = fork();
		CHECK(w[cpu] >= 0);
		if (w[cpu] == 0)
			_exit(windows_worker(l, cpu));
	}
	for (cpu = 0; cpu < 2; cpu++)
		CHECK_EQ(wait_exit_ms(w[cpu], NS_TIMEOUT_S * 1000), 0);
	return 0;
}

static int windows_outer(void *arg)
{
	struct limits *l = arg;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return NS_ONE_CPU;
	set_pid_max(l->outer);
	return run_in_pidns(windows_inner, l, NS_TIMEOUT_S);
}

TEST_F_TIMEOUT(pid, windows_every_level, 200)
{
	struct limits l = {
		.outer = pid_max_min() + 100,
		.inner = pid_max_min() + 1000,
	};

	RUN_IN_PIDNS(windows_outer, &l, NS_TIMEOUT_S);
}

TEST_HARNESS_MAIN
