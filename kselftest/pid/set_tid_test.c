// SPDX-License-Identifier: GPL-2.0
/*
 * clone3() with set_tid, and /proc/sys/kernel/ns_last_pid.
 *
 * This program pins the syscall-level behaviour of Linux 6.12's PID
 * allocator (alloc_pid()/free_pid() on top of one IDR per PID namespace)
 * for callers that ask for a number, as the reference for a replacement
 * allocator:
 *   - clone3() with set_tid: the exact number, EEXIST, EINVAL, EPERM,
 *     several namespace levels at once and the rollback of the inner
 *     levels when an outer one fails; a namespace without an init and
 *     one whose init has exited;
 *   - /proc/sys/kernel/ns_last_pid (needs CONFIG_CHECKPOINT_RESTORE).
 * Every value and errno is checked exactly; each test names the 6.12 code
 * it pins.
 *
 * clone3_set_tid: clone3() set_tid: exact pid; EEXIST when taken (1
 *	included); EINVAL for 0, -1, pid_max, more levels than exist, 33
 *	levels, NULL/size mismatches; EPERM without CAP_SYS_ADMIN/
 *	CAP_CHECKPOINT_RESTORE (range checked first); set_tid does not move
 *	the fork() cursor; a freed number is available at once.
 * clone3_set_tid_nested: set_tid with 2 and 3 levels (innermost first),
 *	with CLONE_NEWPID from the initial namespace and from inside a new
 *	one; NSpid shows each level; EEXIST at an outer level releases the
 *	inner numbers already taken; a new namespace (no init yet) accepts
 *	only 1.
 * clone3_set_tid_no_init: after unshare(CLONE_NEWPID): set_tid other than
 *	1 is EINVAL (no child_reaper); with an init, other numbers work and
 *	fork() still starts at 2; after the init exited, fork() and clone3()
 *	fail with ENOMEM (PIDNS_ADDING cleared).
 * ns_last_pid_two_cpus: ns_last_pid with forks on two CPUs, each with its
 *	own window of numbers: after a write of N - 1 the next fork on either
 *	CPU gets N, the other CPU's next fork comes after it, and a read
 *	gives a number one of them was handed.  Skips with one CPU.
 * ns_last_pid: /proc/sys/kernel/ns_last_pid of the writer's namespace:
 *	reads the last pid, a write makes the next fork() take the first
 *	free number after it (below 300 too; 0 restarts at 1; wraps to 300
 *	at pid_max), range [0, pid_max], EPERM for an unprivileged writer
 *	(mode 0666), one value per namespace.
 *
 * The tests need root; they skip without it, and the ns_last_pid tests
 * without CONFIG_CHECKPOINT_RESTORE.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/sched.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_PID	/* util.h defines FIXTURE(pid) */
#include "util.h"

#define MAX_PID_NS_LEVEL 32
#define UID_NOBODY	4242
#define NS_LAST_PID	"/proc/sys/kernel/ns_last_pid"

/* "Key:\t1\t2..." from /proc/self/status; how many numbers, or -1. */
static int status_field(const char *key, long *vals, int max)
{
	char buf[4096], *p, *end;
	int i = 0;

	if (read_text("/proc/self/status", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, key);
	if (!p)
		return -1;
	p += strlen(key);
	while (i < max) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		vals[i++] = v;
		p = end;
		if (*p == '\n')
			break;
	}
	return i;
}

/* ------------------------------------------------------------------ */
/* clone3() set_tid                                                    */
/* ------------------------------------------------------------------ */

/* pid_max as the calling namespace sees it (one global value in 6.12). */
static long ns_pid_max(void)
{
	long v = -1;

	CHECK_EQ(read_long(PID_MAX, &v), 0);
	return v;
}

static int set_tid_scenario(void *arg)
{
	const long pid_max = ns_pid_max();
	pid_t tid[MAX_PID_NS_LEVEL + 1] = { 0 };
	pid_t p, held;

	CHECK_EQ(getpid(), 1);
	/* the exact pid */
	tid[0] = 77;
	held = clone3_tids(tid, 1, 0, NULL);
	if (held == 0) {
		if (getpid() != 77)
			_exit(1);
		for (;;)
			pause();
	}
	CHECK_EQ(held, 77);
	CHECK_EQ(kill(77, 0), 0);
	/* taken */
	CHECK_EQ(try_tid(77), -EEXIST);
	CHECK_EQ(try_tid(1), -EEXIST);
	/* set_tid does not move the cursor: fork() still takes 2 */
	CHECK_EQ(fork_reap(), 2);
	/* out of range */
	CHECK_EQ(try_tid(0), -EINVAL);
	CHECK_EQ(try_tid(-1), -EINVAL);
	CHECK_EQ(try_tid(pid_max), -EINVAL);
	CHECK_EQ(try_tid(pid_max - 1), pid_max - 1);
	CHECK_EQ(fork_reap(), 3);
	/* more levels than the caller's namespace has (level 1): EINVAL */
	tid[0] = 100;
	tid[1] = 101;
	tid[2] = 102;
	CHECK_EQ(try_tids(tid, 3, 0), -EINVAL);
	CHECK_EQ(try_tids(tid, MAX_PID_NS_LEVEL + 1, 0), -EINVAL);
	CHECK_EQ(try_tids(NULL, 1, 0), -EINVAL);
	CHECK_EQ(try_tids(tid, 0, 0), -EINVAL);
	/* without CAP_SYS_ADMIN/CAP_CHECKPOINT_RESTORE: EPERM */
	p = fork();
	if (p == 0) {
		CHECK_EQ(setresgid(UID_NOBODY, UID_NOBODY, UID_NOBODY), 0);
		CHECK_EQ(setresuid(UID_NOBODY, UID_NOBODY, UID_NOBODY), 0);
		CHECK_EQ(try_tid(100), -EPERM);
		/* the range is checked first */
		CHECK_EQ(try_tid(0), -EINVAL);
		_exit(0);
	}
	CHECK(p > 0);
	CHECK_EQ(wait_exit_ms(p, PID_TIMEOUT_MS), 0);
	/* a freed number can be had again at once */
	CHECK_EQ(kill(held, SIGKILL), 0);
	CHECK_EQ(wait_exit_ms(held, PID_TIMEOUT_MS), 128 + SIGKILL);
	CHECK_EQ(try_tid(77), 77);
	CHECK_EQ(try_tid(77), 77);
	return 0;
}

/*
 * clone3() set_tid in a namespace of our own: the exact pid, EEXIST for
 * a number in use, EINVAL out of [1, pid_max) or for more levels than
 * there are, EPERM without privilege; it does not move the cursor.
 */
TEST_F(pid, clone3_set_tid)
{
	struct ns_ctx c = { 0 };

	RUN_IN_PIDNS(set_tid_scenario, &c, NS_TIMEOUT_S);
}

/* The child's NSpid, outermost first, equals @want[0..@n). */
static void check_nspid(const long *want, int n)
{
	long got[MAX_PID_NS_LEVEL + 1];
	int i;

	CHECK_EQ(status_field("NSpid:", got, MAX_PID_NS_LEVEL + 1), n);
	for (i = 0; i < n; i++)
		CHECK_EQ(got[i], want[i]);
}

/*
 * clone3() with set_tid @tid[0..@n) (innermost first) and @flags: the
 * child must be @tid[0] with an NSpid of @tid reversed and exit with 0;
 * the caller must get @tid[1] with CLONE_NEWPID (the child is then the
 * init of a new namespace), else @tid[0].
 */
static void check_set_tid(const pid_t *tid, int n, __u64 flags)
{
	pid_t p = clone3_tids(tid, n, flags, NULL);
	int i;

	if (p == 0) {
		long want[MAX_PID_NS_LEVEL];

		for (i = 0; i < n; i++)
			want[i] = tid[n - 1 - i];
		CHECK_EQ(getpid(), tid[0]);
		check_nspid(want, n);
		_exit(0);
	}
	CHECK_EQ(p, tid[flags & CLONE_NEWPID ? 1 : 0]);
	CHECK_EQ(wait_exit_ms(p, PID_TIMEOUT_MS), 0);
}

static int set_tid_nested_scenario(void *arg)
{
	const struct ns_ctx *c = arg;
	pid_t tid[3], held;

	CHECK_EQ(getpid(), 1);
	/* both levels: 50 here, outer[1] in the initial namespace */
	tid[0] = 50;
	tid[1] = c->outer[1];
	check_set_tid(tid, 2, 0);

	/*
	 * The outer number is taken: EEXIST, and the inner one, allocated
	 * first, is given back.
	 */
	tid[0] = 51;
	tid[1] = c->test;
	CHECK_EQ(try_tids(tid, 2, 0), -EEXIST);
	CHECK_EQ(try_tid(51), 51);
	/* the inner one is taken (1 is us): EEXIST, the outer stays free */
	tid[0] = 1;
	tid[1] = c->outer[1];
	CHECK_EQ(try_tids(tid, 2, 0), -EEXIST);
	tid[0] = 52;
	CHECK_EQ(try_tids(tid, 2, 0), 52);

	/* a live holder of both numbers */
	tid[0] = 70;
	tid[1] = c->outer[1];
	held = clone3_tids(tid, 2, 0, NULL);
	if (held == 0)
		for (;;)
			pause();
	CHECK_EQ(held, 70);
	CHECK_EQ(try_tid(70), -EEXIST);
	tid[0] = 71;
	CHECK_EQ(try_tids(tid, 2, 0), -EEXIST);
	CHECK_EQ(try_tid(71), 71);
	CHECK_EQ(kill(held, SIGKILL), 0);
	CHECK_EQ(wait_exit_ms(held, PID_TIMEOUT_MS), 128 + SIGKILL);

	/* three levels through CLONE_NEWPID: 1, 60, outer[2] */
	tid[0] = 1;
	tid[1] = 60;
	tid[2] = c->outer[2];
	check_set_tid(tid, 3, CLONE_NEWPID);
	/* three levels without a new namespace: EINVAL */
	tid[0] = 61;
	CHECK_EQ(try_tids(tid, 3, 0), -EINVAL);
	return 0;
}

/*
 * Up to @n free numbers of the initial namespace, just below pid_max:
 * no task, group or session uses them, and clone3(set_tid) gets them.
 */
static int find_free_outer(pid_t *out, int n, long pid_max)
{
	int found = 0;
	pid_t nr;

	for (nr = pid_max - 1; nr > RESERVED_PIDS && found < n; nr--) {
		if (kill(nr, 0) == 0 || errno != ESRCH)
			continue;
		if (kill(-nr, 0) == 0 || errno != ESRCH)
			continue;
		if (getsid(nr) >= 0 || errno != ESRCH)
			continue;
		if (try_tid(nr) == nr)
			out[found++] = nr;
	}
	return found;
}

/*
 * set_tid for two and three namespace levels (innermost first), from the
 * initial namespace with CLONE_NEWPID and from inside a new namespace;
 * the child's NSpid shows every level.  When one level fails, the levels
 * already allocated are released (alloc_pid()'s out_free path).  A new
 * namespace has no init yet, so only 1 may be asked for there.
 */
TEST_F(pid, clone3_set_tid_nested)
{
	struct ns_ctx c = { .pid_max = self->pid_max, .test = getpid() };
	pid_t tid[2], p;

	ASSERT_EQ(3, find_free_outer(c.outer, 3, self->pid_max));

	tid[0] = 1;
	tid[1] = c.outer[0];
	p = clone3_tids(tid, 2, CLONE_NEWPID, NULL);
	if (p == 0) {
		long want[2] = { c.outer[0], 1 };

		CHECK_EQ(getpid(), 1);
		check_nspid(want, 2);
		_exit(0);
	}
	ASSERT_EQ(c.outer[0], p);
	ASSERT_EQ(0, wait_exit_ms(p, PID_TIMEOUT_MS));
	/* the new namespace has no init to adopt a pid 2 */
	tid[0] = 2;
	ASSERT_EQ(-EINVAL, try_tids(tid, 2, CLONE_NEWPID));
	tid[0] = 1;
	tid[1] = getpid();
	ASSERT_EQ(-EEXIST, try_tids(tid, 2, CLONE_NEWPID));
	/* two levels where there is one */
	tid[0] = c.outer[0];
	tid[1] = c.outer[1];
	ASSERT_EQ(-EINVAL, try_tids(tid, 2, 0));
	/* nothing was leaked: outer[0] can be had again */
	tid[0] = 1;
	tid[1] = c.outer[0];
	ASSERT_EQ(c.outer[0], try_tids(tid, 2, CLONE_NEWPID));

	RUN_IN_PIDNS(set_tid_nested_scenario, &c, NS_TIMEOUT_S);
}

/* @p, just forked (0 in the child), must be @nr there and exit with 0. */
static void check_child_nr(pid_t p, pid_t nr)
{
	if (p == 0)
		_exit(getpid() == nr ? 0 : 1);
	CHECK(p > 0);
	CHECK_EQ(wait_exit_ms(p, PID_TIMEOUT_MS), 0);
}

/* Runs in a child of the test, in the initial namespace. */
static int no_reaper_main(void)
{
	pid_t tid, init, p;

	CHECK_EQ(unshare(CLONE_NEWPID), 0);
	/* no init yet: only pid 1 may be asked for */
	tid = 5;
	CHECK_EQ(try_tid(5), -EINVAL);
	tid = 1;
	init = clone3_tids(&tid, 1, 0, NULL);
	if (init == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getpid() != 1)
			_exit(1);
		for (;;)
			pause();
	}
	CHECK(init > 0);
	/* now 5 works, and fork() still starts at the cursor: 2, then 3 */
	tid = 5;
	check_child_nr(clone3_tids(&tid, 1, 0, NULL), 5);
	check_child_nr(fork(), 2);
	check_child_nr(fork(), 3);

	/*
	 * The init exits: the namespace takes no new process, whatever the
	 * number (alloc_pid(): no PIDNS_ADDING, -ENOMEM).
	 */
	CHECK_EQ(kill(init, SIGKILL), 0);
	CHECK_EQ(wait_exit_ms(init, PID_TIMEOUT_MS), 128 + SIGKILL);
	p = fork();
	if (p == 0)
		_exit(0);
	CHECK_EQ(p, -1);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(try_tid(1), -ENOMEM);
	CHECK_EQ(try_tid(5), -ENOMEM);
	return 0;
}

/*
 * After unshare(CLONE_NEWPID) the namespace has no child_reaper: set_tid
 * of anything but 1 is EINVAL.  Once its init exists other numbers work;
 * once the init has exited, fork() and clone3() fail with ENOMEM.
 */
TEST_F(pid, clone3_set_tid_no_init)
{
	pid_t p = fork();

	ASSERT_LE(0, p);
	if (p == 0) {
		die_with_parent(getppid());
		_exit(no_reaper_main());
	}
	ASSERT_EQ(0, wait_exit_ms(p, NS_TIMEOUT_S * 1000));
}

/* ------------------------------------------------------------------ */
/* ns_last_pid                                                         */
/* ------------------------------------------------------------------ */

static long last_pid(void)
{
	long v = LONG_MIN;

	CHECK_EQ(read_long(NS_LAST_PID, &v), 0);
	return v;
}

static int ns_last_pid_inner(void)
{
	/* the init of a namespace nested in the test's namespace */
	CHECK_EQ(getpid(), 1);
	CHECK_EQ(last_pid(), 1);
	CHECK_EQ(write_long(NS_LAST_PID, 50), 0);
	CHECK_EQ(fork_reap(), 51);
	CHECK_EQ(last_pid(), 51);
	return 0;
}

static int ns_last_pid_scenario(void *arg)
{
	const long pid_max = ns_pid_max();
	long before;
	pid_t p, h;

	CHECK_EQ(getpid(), 1);
	/* it reads the last pid handed out */
	CHECK_EQ(last_pid(), 1);
	CHECK_EQ(fork_reap(), 2);
	CHECK_EQ(last_pid(), 2);
	/* and a write sets it: the next fork gets last + 1 */
	CHECK_EQ(write_long(NS_LAST_PID, 500), 0);
	CHECK_EQ(last_pid(), 500);
	CHECK_EQ(fork_reap(), 501);
	CHECK_EQ(last_pid(), 501);
	/* below RESERVED_PIDS too, as long as the cursor is */
	CHECK_EQ(write_long(NS_LAST_PID, 10), 0);
	CHECK_EQ(fork_reap(), 11);
	/* 0: the search starts at 1, which is us */
	CHECK_EQ(write_long(NS_LAST_PID, 0), 0);
	CHECK_EQ(fork_reap(), 2);
	/* numbers in use are skipped */
	CHECK_EQ(write_long(NS_LAST_PID, 599), 0);
	h = spawn_pauser();
	CHECK_EQ(h, 600);
	CHECK_EQ(write_long(NS_LAST_PID, 599), 0);
	CHECK_EQ(fork_reap(), 601);
	/* at the top it wraps to RESERVED_PIDS */
	CHECK_EQ(write_long(NS_LAST_PID, pid_max - 2), 0);
	CHECK_EQ(fork_reap(), pid_max - 1);
	CHECK_EQ(fork_reap(), RESERVED_PIDS);
	CHECK_EQ(write_long(NS_LAST_PID, pid_max), 0);
	CHECK_EQ(fork_reap(), RESERVED_PIDS);
	/* the range is [0, pid_max] */
	CHECK_EQ(write_long(NS_LAST_PID, pid_max + 1), -EINVAL);
	CHECK_EQ(write_long(NS_LAST_PID, -1), -EINVAL);
	CHECK_EQ(last_pid(), RESERVED_PIDS);

	/* the file is 0666, but writing needs privilege (in the ns) */
	p = fork();
	if (p == 0) {
		int fd;

		CHECK_EQ(setresgid(UID_NOBODY, UID_NOBODY, UID_NOBODY), 0);
		CHECK_EQ(setresuid(UID_NOBODY, UID_NOBODY, UID_NOBODY), 0);
		fd = open(NS_LAST_PID, O_WRONLY | O_CLOEXEC);
		CHECK(fd >= 0);
		CHECK_ERR(write(fd, "700", 3), EPERM);
		close(fd);
		CHECK_EQ(last_pid(), getpid());
		_exit(0);
	}
	CHECK_EQ(p, RESERVED_PIDS + 1);
	CHECK_EQ(wait_exit_ms(p, PID_TIMEOUT_MS), 0);

	/*
	 * Each namespace has its own: a nested init writes 50 into its
	 * namespace's; ours moves only by the three processes it cost us.
	 */
	before = last_pid();
	p = fork();
	if (p == 0) {
		pid_t init;

		die_with_parent(1);
		CHECK_EQ(unshare(CLONE_NEWPID), 0);
		init = fork();
		if (init == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL))
				_exit(1);
			_exit(ns_last_pid_inner());
		}
		CHECK(init > 0);
		_exit(wait_exit_ms(init, PID_TIMEOUT_MS));
	}
	CHECK_EQ(p, before + 1);
	CHECK_EQ(wait_exit_ms(p, PID_TIMEOUT_MS), 0);
	CHECK_EQ(last_pid(), before + 3);
	CHECK_EQ(kill(h, SIGKILL), 0);
	CHECK_EQ(wait_exit_ms(h, PID_TIMEOUT_MS), 128 + SIGKILL);
	return 0;
}

/*
 * ns_last_pid with a task forking alone on two CPUs in turn: after a write
 * of N - 1 the next fork gets N on either CPU (CRIU's restore), the forks
 * after it N + 1, N + 2, ... whichever CPU they run on, and a read gives
 * the number handed out last.
 */
static int ns_last_pid_cpus_scenario(void *arg)
{
	int cpu[2] = { -1, -1 }, i, n = 0;
	pid_t a, b, l;

	CHECK_EQ(getpid(), 1);
	/* Two CPUs this task may run on. */
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (run_on_cpu(i))
			cpu[n++] = i;
	if (n < 2)
		return NS_ONE_CPU;
	/* Alone: consecutive numbers on both CPUs. */
	a = fork_reap();
	for (i = 0; i < 200; i++) {
		CHECK(run_on_cpu(cpu[i % 2]));
		CHECK_EQ(fork_reap(), a + 1 + i);
	}
	for (i = 0; i < 4; i++) {
		long want = 5000 + 1000 * i;

		CHECK_EQ(write_long(NS_LAST_PID, want - 1), 0);
		CHECK(run_on_cpu(cpu[i % 2]));
		CHECK_EQ(fork_reap(), want);
		CHECK_EQ(last_pid(), want);
		CHECK_EQ(fork_reap(), want + 1);
		CHECK(run_on_cpu(cpu[(i + 1) % 2]));
		CHECK_EQ(fork_reap(), want + 2);
	}
	CHECK(run_on_cpu(cpu[0]));
	a = fork_reap();
	CHECK(run_on_cpu(cpu[1]));
	b = fork_reap();
	l = last_pid();
	CHECK_EQ(b, a + 1);
	CHECK_EQ(l, b);
	return 0;
}

TEST_F(pid, ns_last_pid_two_cpus)
{
	struct ns_ctx c = { 0 };

	if (access(NS_LAST_PID, F_OK))
		SKIP(return, "no %s: kernel built without CONFIG_CHECKPOINT_RESTORE",
		     NS_LAST_PID);
	RUN_IN_PIDNS(ns_last_pid_cpus_scenario, &c, NS_TIMEOUT_S);
}

/*
 * /proc/sys/kernel/ns_last_pid of the writer's own namespace: reads the
 * last pid handed out, a write makes the next fork() take the first free
 * number after it (wrapping to RESERVED_PIDS at pid_max), the range is
 * [0, pid_max], writing needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE.
 * 6.12 has the file only with CONFIG_CHECKPOINT_RESTORE.
 */
TEST_F(pid, ns_last_pid)
{
	struct ns_ctx c = { 0 };

	if (access(NS_LAST_PID, F_OK))
		SKIP(return, "no %s: kernel built without CONFIG_CHECKPOINT_RESTORE",
		     NS_LAST_PID);
	RUN_IN_PIDNS(ns_last_pid_scenario, &c, NS_TIMEOUT_S);
}

TEST_HARNESS_MAIN
