// SPDX-License-Identifier: GPL-2.0
/*
 * Nice values and I/O priorities of threads, processes and process groups.
 *
 * This program pins the syscall-level behaviour of Linux 6.12 for
 *   - setpriority()/getpriority() with PRIO_PROCESS and PRIO_PGRP, down
 *     to single threads and unprivileged callers;
 *   - ioprio_set()/ioprio_get() with IOPRIO_WHO_PGRP.
 *
 * Every one of them resolves a pid or a process group number, or walks the
 * tasks attached to one, so this is part of the regression net for changes
 * to PID allocation and lookup.  Values and errnos are checked exactly.
 * Where 6.12 does something surprising the test pins it with a comment
 * naming the code responsible.
 *
 * The tests need root (CAP_SETUID, CAP_SYS_NICE) and skip without it;
 * ioprio_pgrp skips when the kernel has no ioprio_get() (CONFIG_BLOCK=n).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <linux/ioprio.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_SESSION	/* util.h defines FIXTURE(session) */
#include "util.h"

/* ------------------------------------------------------------------ */
/* setpriority() / getpriority()                                       */
/* ------------------------------------------------------------------ */

/*
 * Nice values belong to threads.  PRIO_PROCESS takes any tid (a tgid
 * addresses the group leader thread only); PRIO_PGRP and PRIO_USER walk
 * every thread.  The raw syscall returns 20 - nice, glibc converts back.
 */
TEST_F(session, setpriority_process_thread)
{
	pid_t tids[4], t1 = -1, t2 = -1;
	struct child c;
	int i, n;

	if (geteuid())
		SKIP(return, "needs root");
	SPAWN(&c, c.nthreads = 2);
	n = list_tids(c.pid, tids, 4);
	ASSERT_EQ(3, n);
	for (i = 0; i < n; i++) {
		if (tids[i] == c.pid)
			continue;
		if (t1 < 0)
			t1 = tids[i];
		else
			t2 = tids[i];
	}
	ASSERT_LT(0, t2);
	expect_nice(_metadata, c.pid, 0);

	ASSERT_EQ(0, setpriority(PRIO_PROCESS, t1, 7));
	EXPECT_NICE(c.pid, t1, 7);
	EXPECT_NICE(c.pid, c.pid, 0);
	EXPECT_NICE(c.pid, t2, 0);
	EXPECT_EQ(20 - 7, sys_getpriority(PRIO_PROCESS, t1));
	EXPECT_EQ(20, sys_getpriority(PRIO_PROCESS, c.pid));

	ASSERT_EQ(0, setpriority(PRIO_PROCESS, c.pid, 3));
	EXPECT_NICE(c.pid, c.pid, 3);
	EXPECT_NICE(c.pid, t1, 7);
	EXPECT_NICE(c.pid, t2, 0);

	/* Out-of-range values are clamped to [-20, 19]. */
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, t2, 100));
	EXPECT_NICE(c.pid, t2, 19);
	EXPECT_EQ(1, sys_getpriority(PRIO_PROCESS, t2));
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, t2, -100));
	EXPECT_NICE(c.pid, t2, -20);
	EXPECT_EQ(40, sys_getpriority(PRIO_PROCESS, t2));

	ASSERT_ERRNO(EINVAL, setpriority(PRIO_USER + 1, 0, 0));
	ASSERT_ERRNO(EINVAL, getpriority(PRIO_USER + 1, 0));
	/* The caller is untouched throughout. */
	EXPECT_NICE(getpid(), getpid(), 0);
	FINISH(&c);
}

TEST_F(session, setpriority_pgrp)
{
	struct child p1, p2, o;
	pid_t t, u;

	if (geteuid())
		SKIP(return, "needs root");
	SPAWN(&p1, p1.pgid = 0, p1.nthreads = 1);
	SPAWN(&p2, p2.pgid = p1.pid, p2.nthreads = 2);
	SPAWN(&o, o.pgid = 0, o.nthreads = 1);

	ASSERT_EQ(0, setpriority(PRIO_PGRP, p1.pid, 5));
	expect_nice(_metadata, p1.pid, 5);
	expect_nice(_metadata, p2.pid, 5);
	expect_nice(_metadata, o.pid, 0);
	EXPECT_NICE(getpid(), getpid(), 0);
	errno = 0;
	EXPECT_EQ(5, getpriority(PRIO_PGRP, p1.pid));
	EXPECT_EQ(0, errno);
	EXPECT_EQ(20 - 5, sys_getpriority(PRIO_PGRP, p1.pid));

	/* The highest priority (lowest nice) of any thread is reported. */
	t = other_tid(p2.pid);
	ASSERT_LT(0, t);
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, t, 2));
	EXPECT_EQ(2, getpriority(PRIO_PGRP, p1.pid));
	EXPECT_EQ(20 - 2, sys_getpriority(PRIO_PGRP, p1.pid));
	EXPECT_EQ(0, getpriority(PRIO_PGRP, o.pid));

	/* who == 0 is the caller's group: the test alone here. */
	ASSERT_EQ(0, setpriority(PRIO_PGRP, 0, 1));
	EXPECT_NICE(getpid(), getpid(), 1);
	EXPECT_EQ(1, getpriority(PRIO_PGRP, 0));
	expect_nice(_metadata, o.pid, 0);
	expect_nice(_metadata, p1.pid, 5);
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, 0, 0));

	/* Empty groups: an unused pid, or a live pid that is no group. */
	u = unused_pid();
	ASSERT_LT(0, u);
	ASSERT_ERRNO(ESRCH, setpriority(PRIO_PGRP, u, 1));
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_PGRP, u));
	ASSERT_ERRNO(ESRCH, setpriority(PRIO_PGRP, p2.pid, 1));
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_PGRP, p2.pid));
	expect_nice(_metadata, p1.pid, 5);

	FINISH(&p1);
	FINISH(&p2);
	FINISH(&o);
}

static int unpriv_nice_fn(struct child *c)
{
	pid_t t = other_tid(getpid());

	CHECK(t > 0);
	CHECK(getpriority(PRIO_PROCESS, 0) == 0);
	/* Raising the nice value is always allowed ... */
	CHECK(setpriority(PRIO_PROCESS, 0, 5) == 0);
	CHECK(getpriority(PRIO_PROCESS, 0) == 5);
	/* ... lowering it is not (RLIMIT_NICE is 0) ... */
	CHECK_ERR(setpriority(PRIO_PROCESS, 0, 4), EACCES);
	CHECK(getpriority(PRIO_PROCESS, 0) == 5);
	/* ... and setting the current value is no lowering. */
	CHECK(setpriority(PRIO_PROCESS, 0, 5) == 0);

	CHECK(setpriority(PRIO_PROCESS, t, 8) == 0);
	CHECK_ERR(setpriority(PRIO_PROCESS, t, 7), EACCES);
	CHECK(getpriority(PRIO_PROCESS, t) == 8);

	CHECK_ERR(setpriority(PRIO_PGRP, 0, 3), EACCES);
	CHECK_ERR(setpriority(PRIO_USER, 0, 3), EACCES);
	CHECK_ERR(setpriority(PRIO_USER, c->uid, 3), EACCES);
	CHECK(getpriority(PRIO_PROCESS, 0) == 5);
	CHECK(getpriority(PRIO_PROCESS, t) == 8);

	/*
	 * A walk applies the value to every thread it may and returns the
	 * last error: here the main thread goes to 6, while the other one
	 * (nice 8) refuses with EACCES.
	 */
	CHECK_ERR(setpriority(PRIO_PGRP, 0, 6), EACCES);
	CHECK(getpriority(PRIO_PROCESS, 0) == 6);
	CHECK(getpriority(PRIO_PROCESS, t) == 8);
	CHECK_ERR(setpriority(PRIO_USER, 0, 7), EACCES);
	CHECK(getpriority(PRIO_PROCESS, 0) == 7);
	CHECK(getpriority(PRIO_PROCESS, t) == 8);

	/* PRIO_USER on our own uid reaches all our threads. */
	CHECK(setpriority(PRIO_USER, c->uid, 9) == 0);
	CHECK(getpriority(PRIO_PROCESS, 0) == 9);
	CHECK(getpriority(PRIO_PROCESS, t) == 9);
	CHECK(getpriority(PRIO_USER, 0) == 9);
	return 0;
}

TEST_F(session, setpriority_unpriv_eacces)
{
	struct child c;

	if (geteuid())
		SKIP(return, "needs root");
	SPAWN(&c, c.uid = UID_A, c.pgid = 0, c.nthreads = 1,
	      c.fn = unpriv_nice_fn);
	EXPECT_EQ(0, wait_exit(c.pid));
}

static int unpriv_other_user_fn(struct child *c)
{
	pid_t v = c->arg;

	CHECK_ERR(setpriority(PRIO_PROCESS, v, 10), EPERM);
	CHECK_ERR(setpriority(PRIO_PGRP, v, 10), EPERM);
	CHECK_ERR(setpriority(PRIO_USER, UID_B, 10), EPERM);
	/* the test, running as root */
	CHECK_ERR(setpriority(PRIO_PROCESS, getppid(), 10), EPERM);
	/* Reading needs no permission. */
	errno = 0;
	CHECK(getpriority(PRIO_PROCESS, v) == 0 && errno == 0);
	CHECK(getpriority(PRIO_PGRP, v) == 0 && errno == 0);
	CHECK(getpriority(PRIO_USER, UID_B) == 0 && errno == 0);
	/* A uid without processes is ESRCH, not EPERM. */
	CHECK_ERR(setpriority(PRIO_USER, UID_NONE, 10), ESRCH);
	return 0;
}

TEST_F(session, setpriority_unpriv_eperm)
{
	struct child v, w;

	if (geteuid())
		SKIP(return, "needs root");
	SPAWN(&v, v.uid = UID_B, v.pgid = 0, v.nthreads = 1);
	SPAWN(&w, w.uid = UID_A, w.pgid = 0, w.fn = unpriv_other_user_fn,
	      w.arg = v.pid);
	EXPECT_EQ(0, wait_exit(w.pid));
	expect_nice(_metadata, v.pid, 0);
	EXPECT_NICE(getpid(), getpid(), 0);
	FINISH(&v);
}

/* ------------------------------------------------------------------ */
/* ioprio_set() / ioprio_get()                                         */
/* ------------------------------------------------------------------ */

TEST_F(session, ioprio_pgrp)
{
	int be1 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 1);
	int be3 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 3);
	struct child p1, p2, o;
	int o_prio, t_prio;
	pid_t t, u;

	if (!root_with_ioprio(_metadata))
		return;
	SPAWN(&p1, p1.pgid = 0, p1.nthreads = 1);
	SPAWN(&p2, p2.pgid = p1.pid, p2.nthreads = 1);
	SPAWN(&o, o.pgid = 0, o.nthreads = 1);
	o_prio = sys_ioprio_get(IOPRIO_WHO_PROCESS, o.pid);
	ASSERT_LE(0, o_prio);
	t_prio = sys_ioprio_get(IOPRIO_WHO_PROCESS, 0);
	ASSERT_LE(0, t_prio);
	EXPECT_EQ(IOPRIO_NICE0, sys_ioprio_get(IOPRIO_WHO_PGRP, o.pid));

	ASSERT_EQ(0, sys_ioprio_set(IOPRIO_WHO_PGRP, p1.pid, be3));
	expect_ioprio(_metadata, p1.pid, be3);
	expect_ioprio(_metadata, p2.pid, be3);
	expect_ioprio(_metadata, o.pid, o_prio);
	EXPECT_EQ(t_prio, sys_ioprio_get(IOPRIO_WHO_PROCESS, 0));
	EXPECT_EQ(be3, sys_ioprio_get(IOPRIO_WHO_PGRP, p1.pid));

	/* The best (numerically lowest) value of any thread is reported. */
	t = other_tid(p2.pid);
	ASSERT_LT(0, t);
	ASSERT_EQ(0, sys_ioprio_set(IOPRIO_WHO_PROCESS, t, be1));
	EXPECT_EQ(be1, sys_ioprio_get(IOPRIO_WHO_PGRP, p1.pid));
	EXPECT_EQ(be3, sys_ioprio_get(IOPRIO_WHO_PROCESS, p2.pid));
	EXPECT_EQ(IOPRIO_NICE0, sys_ioprio_get(IOPRIO_WHO_PGRP, o.pid));

	/* Empty groups. */
	u = unused_pid();
	ASSERT_LT(0, u);
	ASSERT_ERRNO(ESRCH, sys_ioprio_set(IOPRIO_WHO_PGRP, u, be3));
	ASSERT_ERRNO(ESRCH, sys_ioprio_get(IOPRIO_WHO_PGRP, u));
	ASSERT_ERRNO(ESRCH, sys_ioprio_set(IOPRIO_WHO_PGRP, p2.pid, be3));
	ASSERT_ERRNO(ESRCH, sys_ioprio_get(IOPRIO_WHO_PGRP, p2.pid));
	expect_ioprio(_metadata, p1.pid, be3);

	FINISH(&p1);
	FINISH(&p2);
	FINISH(&o);
}

TEST_HARNESS_MAIN
