// SPDX-License-Identifier: GPL-2.0
/*
 * pid_max, the order of PID allocation and running out of PIDs.
 *
 * This program pins the syscall-level behaviour of Linux 6.12's PID
 * allocator (alloc_pid()/free_pid() on top of one IDR per PID namespace),
 * as the reference for a replacement allocator:
 *   - the order of allocation: in an otherwise idle PID namespace every
 *     fork() gets the first free number after the last one handed out
 *     (idr_alloc_cyclic()), skipping numbers still in use by a task, a
 *     process group or a session, and wraps from pid_max - 1 to
 *     RESERVED_PIDS (300), never lower;
 *   - the limits of the pid_max sysctl;
 *   - exhaustion: fork() and pthread_create() fail with EAGAIN, a failed
 *     fork() leaks no number, forking works again once holders exit.
 * Every value and errno is checked exactly; each test names the 6.12 code
 * it pins.
 *
 * pid_max_limits: pid_max accepts 301..4194304 (RESERVED_PIDS + 1 ..
 *	PID_MAX_LIMIT), EINVAL outside.
 * pid_max_wrap_skips_pgid_sid: pid_max 1000, new namespace: fork() gives
 *	2, 3, ... 999, then wraps to exactly 300, never lower; every pid is
 *	the first free number after the last one (cyclic); the number of a
 *	dead group leader whose group lives on, and of a dead session leader
 *	whose session lives on, is never handed out (not even by set_tid:
 *	EEXIST) until the group/session dies out.
 * fill_pid_space_eagain: pid_max 1000: forking holders from a new
 *	namespace until fork() fails gives EAGAIN (pthread_create() too);
 *	the count matches the free numbers of the initial namespace (pid_max
 *	is global in 6.12, so that one runs out first); after the holders
 *	exit fork() works and the space refills to the same count (failed
 *	forks leak nothing).
 *
 * The two tests that wrap lower the global pid_max to 1000; the fixture's
 * guard and teardown restore it.  The tests need root; they skip without
 * it.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_PID	/* util.h defines FIXTURE(pid) */
#include "util.h"

#define PID_MAX_LIMIT	(4 * 1024 * 1024)	/* 64-bit, !BASE_SMALL */

/* In a namespace's init: SIGKILL every other process in it, reap all. */
static int reap_ns(void)
{
	long long deadline = now_ms() + PID_TIMEOUT_MS;
	sigset_t set;

	block_sigchld();
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	kill(-1, SIGKILL);
	for (;;) {
		struct timespec ts = { 0, 50 * 1000000L };
		pid_t r = waitpid(-1, NULL, WNOHANG);

		if (r > 0)
			continue;
		if (r < 0 && errno == ECHILD)
			return 0;
		if (now_ms() > deadline)
			return -1;
		sigtimedwait(&set, NULL, &ts);
	}
}

/*
 * The next pid the kernel hands out after @prev in an idle namespace:
 * the first number after @prev that is not in @used, wrapping from
 * pid_max - 1 to RESERVED_PIDS (alloc_pid(): idr_alloc_cyclic() from
 * RESERVED_PIDS once the cursor has passed it).
 */
static pid_t model_next(pid_t prev, long pid_max, const pid_t *used, int n)
{
	pid_t nr = prev + 1;
	bool wrapped = false;
	int i;

again:
	for (; nr < pid_max; nr++) {
		for (i = 0; i < n; i++)
			if (used[i] == nr)
				break;
		if (i == n)
			return nr;
	}
	if (wrapped)
		return -1;
	wrapped = true;
	nr = RESERVED_PIDS;
	goto again;
}

/* ------------------------------------------------------------------ */
/* pid_max                                                             */
/* ------------------------------------------------------------------ */

/* 6.12: pid_max_min = RESERVED_PIDS + 1 (for <= 37 CPUs), PID_MAX_LIMIT. */
TEST_F(pid, pid_max_limits)
{
	long v;

	ASSERT_EQ(-EINVAL, write_long(PID_MAX, RESERVED_PIDS));
	ASSERT_EQ(-EINVAL, write_long(PID_MAX, 0));
	ASSERT_EQ(-EINVAL, write_long(PID_MAX, -1));
	ASSERT_EQ(-EINVAL, write_long(PID_MAX, PID_MAX_LIMIT + 1));
	ASSERT_EQ(0, read_long(PID_MAX, &v));
	ASSERT_EQ(self->pid_max, v);
	SET_PID_MAX(RESERVED_PIDS + 1);
	SET_PID_MAX(PID_MAX_LIMIT);
	SET_PID_MAX(self->pid_max);
}

/* ------------------------------------------------------------------ */
/* wrap-around, and numbers held by groups and sessions                */
/* ------------------------------------------------------------------ */

/*
 * Fork a child that becomes a process group leader (or, with @session, a
 * session leader) and forks a member, then exits.  A session member moves
 * to a group of its own, so that the leader's number is only a session
 * id.  Returns the (reaped) leader, *@member the still running member.
 */
static pid_t spawn_leader(bool session, pid_t *member)
{
	int fds[2];
	pid_t l, m = -1;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	l = fork();
	if (l == 0) {
		close(fds[0]);
		if (session)
			CHECK_EQ(setsid(), getpid());
		else
			CHECK_EQ(setpgid(0, 0), 0);
		m = fork();
		CHECK(m >= 0);
		if (m == 0) {
			/*
			 * No parent-death signal: the leader exits on
			 * purpose.  The member dies with the namespace.
			 */
			alarm(PID_CHILD_ALARM);
			if (session)
				CHECK_EQ(setpgid(0, 0), 0);
			m = getpid();
			CHECK_EQ(write_full(fds[1], &m, sizeof(m)), 0);
			for (;;)
				pause();
		}
		_exit(0);
	}
	close(fds[1]);
	if (l > 0 && read_full(fds[0], &m, sizeof(m), PID_TIMEOUT_MS))
		m = -1;
	close(fds[0]);
	if (l < 0 || m < 0 || wait_exit_ms(l, PID_TIMEOUT_MS) != 0)
		return -1;
	*member = m;
	return l;
}

static int wrap_scenario(void *arg)
{
	const struct ns_ctx *c = arg;
	pid_t held[4], prev, p, want, l1, m1, l2, m2;
	int n, after = 0;
	bool wrapped = false;

	CHECK_EQ(getpid(), 1);
	/*
	 * The limit this namespace wraps at, set from inside it: 6.12's is
	 * global, a namespace's own since 6.14 (a new one starts at
	 * PID_MAX_LIMIT).
	 */
	CHECK_EQ(write_long(PID_MAX, c->pid_max), 0);
	/* A fresh namespace hands out 2, 3, 4, ... */
	for (prev = 1; prev < RESERVED_PIDS; prev++)
		CHECK_EQ(fork_reap(), prev + 1);

	/* 300 is free again; 301 a dead group leader, 303 a dead session's */
	l1 = spawn_leader(false, &m1);
	l2 = spawn_leader(true, &m2);
	CHECK_EQ(l1, RESERVED_PIDS + 1);
	CHECK_EQ(m1, RESERVED_PIDS + 2);
	CHECK_EQ(l2, RESERVED_PIDS + 3);
	CHECK_EQ(m2, RESERVED_PIDS + 4);
	CHECK_EQ(getpgid(m1), l1);
	CHECK_EQ(getsid(m2), l2);
	CHECK_EQ(getpgid(m2), m2);
	CHECK_ERR(kill(l1, 0), ESRCH);
	CHECK_ERR(kill(l2, 0), ESRCH);
	CHECK_EQ(kill(-l1, 0), 0);		/* the group lives on */
	CHECK_ERR(kill(-l2, 0), ESRCH);	/* 303 is only a session id */

	held[0] = l1;
	held[1] = m1;
	held[2] = l2;
	held[3] = m2;
	prev = m2;
	for (n = 0; after < 8; n++) {
		CHECK(n < 2 * c->pid_max);
		want = model_next(prev, c->pid_max, held, 4);
		p = fork_reap();
		if (p == l1 || p == l2)
			fprintf(stderr,
				"# %d, still the %s of a live process, was handed out as a pid\n",
				p, p == l1 ? "process group id" : "session id");
		CHECK_EQ(p, want);
		if (p < prev) {
			/* the first pid after the wrap */
			CHECK_EQ(p, RESERVED_PIDS);
			CHECK_EQ(prev, c->pid_max - 1);
			wrapped = true;
		}
		if (wrapped) {
			CHECK(p >= RESERVED_PIDS);
			after++;
		}
		prev = p;
	}

	/* set_tid cannot take them either ... */
	CHECK_EQ(try_tid(l1), -EEXIST);
	CHECK_EQ(try_tid(l2), -EEXIST);
	/* ... until the group, then the session, has died out */
	CHECK_EQ(kill(m1, SIGKILL), 0);
	CHECK_EQ(wait_exit_ms(m1, PID_TIMEOUT_MS), 128 + SIGKILL);
	CHECK_ERR(kill(-l1, 0), ESRCH);
	CHECK_EQ(try_tid(l1), l1);
	CHECK_EQ(try_tid(l2), -EEXIST);
	CHECK_EQ(kill(m2, SIGKILL), 0);
	CHECK_EQ(wait_exit_ms(m2, PID_TIMEOUT_MS), 128 + SIGKILL);
	CHECK_EQ(try_tid(l2), l2);
	return 0;
}

/*
 * With pid_max at 1000, a new namespace allocates 2..999 in order, then
 * wraps to 300, never lower.  A number still used as the process group
 * id or session id of a live process, whose own process is gone, is
 * skipped (free_pid() runs only when no task uses the struct pid in any
 * role).
 */
TEST_F_TIMEOUT(pid, pid_max_wrap_skips_pgid_sid, 240)
{
	struct ns_ctx c = { .pid_max = LOW_PID_MAX };

	SET_PID_MAX(LOW_PID_MAX);
	RUN_IN_PIDNS(wrap_scenario, &c, NS_TIMEOUT_S);
}

/* ------------------------------------------------------------------ */
/* exhaustion                                                          */
/* ------------------------------------------------------------------ */

/* Fork pausing holders until fork() fails; how many, *@err the errno. */
static int fill(int max, int *err)
{
	int n = 0;

	for (;;) {
		pid_t p;

		CHECK(n < max);
		p = spawn_pauser();
		if (p < 0) {
			*err = -p;
			return n;
		}
		n++;
	}
}

static int fill_scenario(void *arg)
{
	const struct ns_ctx *c = arg;
	int n, n2, err = 0, i;
	pthread_t t;
	pid_t p;

	CHECK_EQ(getpid(), 1);
	n = fill(c->pid_max, &err);
	CHECK_EQ(err, EAGAIN);
	if (n < c->lo || n > c->hi)
		fprintf(stderr, "# %d holders before EAGAIN, expected %ld..%ld\n",
			n, c->lo, c->hi);
	CHECK(n >= c->lo && n <= c->hi);
	/* it stays full; a thread needs a pid too */
	for (i = 0; i < 64; i++) {
		p = fork();
		if (p == 0)
			_exit(0);
		CHECK_EQ(p, -1);
		CHECK_EQ(errno, EAGAIN);
	}
	CHECK_EQ(pthread_create(&t, NULL, nop_thread, NULL), EAGAIN);

	/* the holders exit: fork works again */
	CHECK_EQ(reap_ns(), 0);
	for (i = 0; i < 16; i++)
		CHECK(fork_reap() > 0);

	/* the failed forks leaked nothing: the same number fits again */
	n2 = fill(c->pid_max, &err);
	CHECK_EQ(err, EAGAIN);
	if (n2 < n - 16 || n2 > n + 16)
		fprintf(stderr, "# refill: %d holders, first fill %d\n", n2, n);
	CHECK(n2 >= n - 16 && n2 <= n + 16);
	CHECK_EQ(reap_ns(), 0);
	CHECK(fork_reap() > 0);
	fprintf(stderr, "# %d and %d processes filled the pid space\n", n, n2);
	return 0;
}

/* Used numbers of the initial namespace below @pid_max (all tasks). */
static void count_used(long pid_max, long *below, long *reserved_up)
{
	struct dirent *e, *t;
	DIR *d, *td;

	*below = *reserved_up = 0;
	d = opendir("/proc");
	while (d && (e = readdir(d))) {
		char path[64];
		int pid = atoi(e->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		td = opendir(path);
		while (td && (t = readdir(td))) {
			long tid = atol(t->d_name);

			if (tid <= 0 || tid >= pid_max)
				continue;
			(*below)++;
			if (tid >= RESERVED_PIDS)
				(*reserved_up)++;
		}
		if (td)
			closedir(td);
	}
	if (d)
		closedir(d);
}

/*
 * Fill the pid space from inside a new namespace with pid_max at 1000:
 * fork() fails with EAGAIN (alloc_pid(): -ENOSPC from the IDR).  pid_max
 * is global in 6.12, so the initial namespace, which holds every task of
 * the new one plus the rest of the system, is the one that runs out: the
 * number of holders is bounded by its free numbers.  Once the holders
 * exit, forking works again and the space fills to the same count.
 */
TEST_F_TIMEOUT(pid, fill_pid_space_eagain, 300)
{
	struct ns_ctx c = { .pid_max = LOW_PID_MAX };
	long below, up;

	SET_PID_MAX(LOW_PID_MAX);
	count_used(LOW_PID_MAX, &below, &up);
	/* the namespace's creator and init take two numbers */
	c.lo = (LOW_PID_MAX - RESERVED_PIDS - up) - 2 - 32;
	c.hi = LOW_PID_MAX - 1 - below;
	TH_LOG("initial namespace: %ld tasks below %d, %ld of them >= %d",
	       below, LOW_PID_MAX, up, RESERVED_PIDS);
	RUN_IN_PIDNS(fill_scenario, &c, NS_TIMEOUT_S * 2);
}

TEST_HARNESS_MAIN
