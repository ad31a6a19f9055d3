// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: setsid(), getsid() and getpgid().
 *
 * This program pins the syscall-level behaviour of Linux 6.12 for setsid(),
 * getsid() and getpgid(), on the caller, its children, their threads and
 * zombies.  Each of them resolves a pid, a process group or a session
 * number, so this is part of the regression net for changes to PID
 * allocation and lookup.  Values and errnos are checked exactly.  Where
 * 6.12 does something surprising the test pins it with a comment naming
 * the code responsible.
 *
 * setsid_drops_ctty needs a devpts instance behind /dev/ptmx; it skips
 * without one.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_SESSION	/* util.h defines FIXTURE(session) */
#include "util.h"

/* ------------------------------------------------------------------ */
/* setsid()                                                            */
/* ------------------------------------------------------------------ */

static int setsid_new_session_fn(struct child *c)
{
	pid_t me = getpid();

	CHECK(getsid(0) == c->arg);
	CHECK(setsid() == me);
	CHECK(getsid(0) == me);
	CHECK(getsid(me) == me);
	CHECK(getpgid(0) == me);
	CHECK(getpgrp() == me);
	CHECK(proc_stat(0, 0, STAT_SESSION) == me);
	CHECK(proc_stat(0, 0, STAT_PGRP) == me);
	/* A new session has no controlling terminal. */
	CHECK_ERR(open("/dev/tty", O_RDWR), ENXIO);
	CHECK(proc_stat(0, 0, STAT_TTY_NR) == 0);
	CHECK(proc_stat(0, 0, STAT_TPGID) == -1);
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

TEST_F(session, setsid_new_session)
{
	/* In the busybox guest this is 0: init never called setsid(). */
	pid_t sid = getsid(0);
	struct child c;

	ASSERT_LE(0, sid);
	SPAWN(&c, c.fn = setsid_new_session_fn, c.arg = sid);
	ASSERT_REPLY(&c, 0);
	EXPECT_EQ(c.pid, getsid(c.pid));
	EXPECT_EQ(c.pid, getpgid(c.pid));
	EXPECT_EQ(c.pid, proc_stat(c.pid, 0, STAT_SESSION));
	EXPECT_EQ(c.pid, proc_stat(c.pid, 0, STAT_PGRP));
	/* The caller's session and group are untouched. */
	EXPECT_EQ(sid, getsid(0));
	EXPECT_EQ(getpid(), getpgid(0));
	FINISH(&c);
}

static int setsid_ctty_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd = ctty_open(t->pty->name);
	pid_t d;

	CHECK(devtty_errno() == 0);
	d = fork_child();
	CHECK(d >= 0);
	if (d == 0) {
		/* inherited the controlling tty ... */
		CHECK(devtty_errno() == 0);
		CHECK(proc_stat(0, 0, STAT_TTY_NR) == tty_nr_of(fd));
		/* ... and setsid() leaves it behind */
		CHECK(setsid() == getpid());
		CHECK(devtty_errno() == ENXIO);
		CHECK(proc_stat(0, 0, STAT_TTY_NR) == 0);
		CHECK(proc_stat(0, 0, STAT_TPGID) == -1);
		CHECK_ERR(tcgetpgrp(fd), ENOTTY);
		_exit(0);
	}
	CHECK(wait_exit(d) == 0);
	/* the old session keeps it */
	CHECK(devtty_errno() == 0);
	CHECK(tcgetsid(fd) == getpid());
	return 0;
}

TEST_F(session, setsid_drops_ctty)
{
	struct pty pty;
	struct ctx t = { .pty = &pty };
	struct child c;

	if (pty_open(&pty))
		SKIP(return, "no pty: %s", strerror(errno));
	SPAWN(&c, c.new_session = true, c.fn = setsid_ctty_fn, c.data = &t);
	EXPECT_EQ(0, wait_exit(c.pid));
}

static int setsid_group_leader_fn(struct child *c)
{
	pid_t sid = getsid(0);

	/* A group leader, but not a session leader. */
	CHECK(getpgid(0) == getpid());
	CHECK(sid != getpid());
	CHECK_ERR(setsid(), EPERM);
	CHECK(getsid(0) == sid);
	CHECK(getpgid(0) == getpid());
	return 0;
}

static int setsid_twice_fn(struct child *c)
{
	CHECK(getsid(0) == getpid());
	CHECK_ERR(setsid(), EPERM);
	CHECK(getsid(0) == getpid());
	return 0;
}

TEST_F(session, setsid_eperm_group_leader)
{
	pid_t sid = getsid(0);
	struct child c1, c2;

	/* The fixture made the test a process group leader. */
	ASSERT_ERRNO(EPERM, setsid());
	EXPECT_EQ(sid, getsid(0));

	SPAWN(&c1, c1.pgid = 0, c1.fn = setsid_group_leader_fn);
	EXPECT_EQ(0, wait_exit(c1.pid));

	SPAWN(&c2, c2.new_session = true, c2.fn = setsid_twice_fn);
	EXPECT_EQ(0, wait_exit(c2.pid));
}

static int setsid_pgid_in_use_fn(struct child *c)
{
	child_get_cmd(c);
	/* We left our group, but our pid still names it. */
	CHECK(getpgid(0) == c->arg);
	CHECK_ERR(setsid(), EPERM);
	child_put_int(c, 0);
	child_get_cmd(c);
	/* The last member is gone, and with it the group. */
	CHECK(setsid() == getpid());
	return 0;
}

/*
 * setsid() fails if any process group uses the caller's pid as its id,
 * not only when the caller leads its own group (ksys_setsid() looks up
 * pid_task(sid, PIDTYPE_PGID)).
 */
TEST_F(session, setsid_eperm_pgid_in_use)
{
	struct child a, b;

	SPAWN(&a, a.pgid = 0, a.fn = setsid_pgid_in_use_fn, a.arg = getpid());
	SPAWN(&b, b.pgid = a.pid);
	ASSERT_EQ(a.pid, getpgid(b.pid));

	ASSERT_EQ(0, setpgid(a.pid, getpid()));
	ASSERT_EQ(getpid(), getpgid(a.pid));
	ASSERT_EQ(a.pid, getpgid(b.pid));
	SEND(&a, 'g');
	ASSERT_REPLY(&a, 0);

	ASSERT_EQ(0, kill(b.pid, SIGKILL));
	ASSERT_EQ(128 + SIGKILL, wait_exit(b.pid));
	ASSERT_ERRNO(ESRCH, kill(-a.pid, 0));
	SEND(&a, 'g');
	EXPECT_EQ(0, wait_exit(a.pid));
}

/* ------------------------------------------------------------------ */
/* getsid() / getpgid()                                                */
/* ------------------------------------------------------------------ */

TEST_F(session, getsid_getpgid_values)
{
	pid_t sid = getsid(0), tid;
	struct child c1, c2, c3;

	ASSERT_LE(0, sid);
	EXPECT_EQ(sid, getsid(getpid()));
	EXPECT_EQ(getpid(), getpgid(0));
	EXPECT_EQ(getpid(), getpgid(getpid()));
	EXPECT_EQ(getpid(), getpgrp());
	EXPECT_EQ(sid, proc_stat(0, 0, STAT_SESSION));
	EXPECT_EQ(getpid(), proc_stat(0, 0, STAT_PGRP));

	SPAWN(&c1, c1.nthreads = 1);
	SPAWN(&c2, c2.pgid = 0);
	SPAWN(&c3, c3.new_session = true);

	/* A child inherits group and session. */
	EXPECT_EQ(getpid(), getpgid(c1.pid));
	EXPECT_EQ(sid, getsid(c1.pid));
	/* A thread id resolves to its thread group's group and session. */
	tid = other_tid(c1.pid);
	ASSERT_LT(0, tid);
	EXPECT_EQ(getpid(), getpgid(tid));
	EXPECT_EQ(sid, getsid(tid));
	EXPECT_EQ(getpid(), proc_stat(c1.pid, tid, STAT_PGRP));
	EXPECT_EQ(sid, proc_stat(c1.pid, tid, STAT_SESSION));

	EXPECT_EQ(c2.pid, getpgid(c2.pid));
	EXPECT_EQ(sid, getsid(c2.pid));
	EXPECT_EQ(c2.pid, proc_stat(c2.pid, 0, STAT_PGRP));
	EXPECT_EQ(sid, proc_stat(c2.pid, 0, STAT_SESSION));

	EXPECT_EQ(c3.pid, getpgid(c3.pid));
	EXPECT_EQ(c3.pid, getsid(c3.pid));
	EXPECT_EQ(c3.pid, proc_stat(c3.pid, 0, STAT_PGRP));
	EXPECT_EQ(c3.pid, proc_stat(c3.pid, 0, STAT_SESSION));

	FINISH(&c1);
	FINISH(&c2);
	FINISH(&c3);
}

/* pid_max, or a negative number if it cannot be read. */
static int read_pid_max(void)
{
	long v = -1;

	read_long("/proc/sys/kernel/pid_max", &v);
	return v;
}

TEST_F(session, getsid_getpgid_esrch)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	pid_t sid = getsid(0), z, top;
	siginfo_t si;

	z = fork();
	ASSERT_LE(0, z);
	if (z == 0)
		_exit(0);
	/* Wait until it is a zombie, without reaping it. */
	do {
		memset(&si, 0, sizeof(si));
		ASSERT_EQ(0, waitid(P_PID, z, &si,
				    WEXITED | WNOHANG | WNOWAIT));
		if (si.si_pid == z)
			break;
		usleep(5000);
	} while (now_ms() < deadline);
	ASSERT_EQ(z, si.si_pid);

	/* A zombie keeps its pid, group and session until reaped. */
	EXPECT_EQ(getpid(), getpgid(z));
	EXPECT_EQ(sid, getsid(z));
	EXPECT_EQ(0, kill(z, 0));

	ASSERT_EQ(z, waitpid(z, NULL, 0));
	ASSERT_ERRNO(ESRCH, getpgid(z));
	ASSERT_ERRNO(ESRCH, getsid(z));
	ASSERT_ERRNO(ESRCH, kill(z, 0));
	ASSERT_ERRNO(ESRCH, setpgid(z, 0));
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_PROCESS, z));

	/* The top of the pid range, if free. */
	top = read_pid_max() - 1;
	ASSERT_LT(300, top);
	if (kill(top, 0) == -1 && errno == ESRCH) {
		ASSERT_ERRNO(ESRCH, getpgid(top));
		ASSERT_ERRNO(ESRCH, getsid(top));
	}
	/* Negative numbers never name a task. */
	ASSERT_ERRNO(ESRCH, getpgid(-1));
	ASSERT_ERRNO(ESRCH, getsid(-1));
}

TEST_HARNESS_MAIN
