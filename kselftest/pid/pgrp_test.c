// SPDX-License-Identifier: GPL-2.0
/*
 * Process groups: setpgid(), signals to a group, orphaned groups and SIGIO.
 *
 * This program pins the syscall-level behaviour of Linux 6.12 for
 *   - setpgid();
 *   - kill(-pgrp), killpg() and kill(0, sig);
 *   - SIGHUP + SIGCONT for a newly orphaned process group that has a
 *     stopped member;
 *   - F_SETOWN(-pgrp) + O_ASYNC delivering SIGIO to a process group.
 *
 * Every one of them resolves a pid or a process group number, or walks the
 * tasks attached to one, so this is part of the regression net for changes
 * to PID allocation and lookup.  Values, errnos, si_code and si_pid are
 * checked exactly.  Where 6.12 does something surprising the test pins it
 * with a comment naming the code responsible.
 *
 * fsetown_pgrp_sigio_socket skips without AF_UNIX sockets.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_SESSION	/* util.h defines FIXTURE(session) */
#include "util.h"

#define PAUSE_ARG	"--pgrp-test-pause"

/* Bounded wait until the child @pid is stopped. */
static int wait_stopped(pid_t pid)
{
	int status;

	if (wait_status(pid, &status, WUNTRACED))
		return -1;
	return WIFSTOPPED(status) ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* setpgid()                                                           */
/* ------------------------------------------------------------------ */

static int setpgid_join_fn(struct child *c)
{
	CHECK(setpgid(0, c->arg) == 0);
	CHECK(getpgid(0) == c->arg);
	CHECK(getpgrp() == c->arg);
	return 0;
}

TEST_F(session, setpgid_join_group)
{
	struct child c1, c2, c3, c4;
	pid_t u;

	SPAWN(&c1, c1.pgid = 0);
	SPAWN(&c2);
	SPAWN(&c4);
	ASSERT_EQ(c1.pid, getpgid(c1.pid));
	ASSERT_EQ(getpid(), getpgid(c2.pid));

	/* The parent moves a child into an existing group ... */
	ASSERT_EQ(0, setpgid(c2.pid, c1.pid));
	EXPECT_EQ(c1.pid, getpgid(c2.pid));
	EXPECT_EQ(c1.pid, proc_stat(c2.pid, 0, STAT_PGRP));

	/* ... or a process joins one itself. */
	SPAWN(&c3, c3.fn = setpgid_join_fn, c3.arg = c1.pid);
	EXPECT_EQ(0, wait_exit(c3.pid));

	/* The target must be a process group: a live pid is not enough. */
	ASSERT_ERRNO(EPERM, setpgid(c2.pid, c4.pid));
	u = unused_pid();
	ASSERT_LT(0, u);
	ASSERT_ERRNO(EPERM, setpgid(c2.pid, u));
	ASSERT_ERRNO(EINVAL, setpgid(c2.pid, -1));
	EXPECT_EQ(c1.pid, getpgid(c2.pid));

	/* Back to our group, then a group of its own. */
	ASSERT_EQ(0, setpgid(c2.pid, getpid()));
	EXPECT_EQ(getpid(), getpgid(c2.pid));
	ASSERT_EQ(0, setpgid(c2.pid, 0));
	EXPECT_EQ(c2.pid, getpgid(c2.pid));
	EXPECT_EQ(c2.pid, proc_stat(c2.pid, 0, STAT_PGRP));

	/* A group leader "creating" its own group again is a no-op. */
	ASSERT_EQ(0, setpgid(0, 0));
	ASSERT_EQ(0, setpgid(getpid(), getpid()));
	EXPECT_EQ(getpid(), getpgid(0));

	FINISH(&c1);
	FINISH(&c2);
	FINISH(&c4);
}

static void *park_thread(void *arg)
{
	int *fds = arg;
	char ch;

	/* Wait for the test to finish with us. */
	if (read(fds[0], &ch, 1) < 0)
		return NULL;
	return NULL;
}

TEST_F(session, setpgid_einval_thread)
{
	pthread_t th;
	int fds[2];
	pid_t tid;

	/* setpgid() on a thread that is not the group leader is EINVAL. */
	ASSERT_EQ(0, pipe(fds));
	ASSERT_EQ(0, pthread_create(&th, NULL, park_thread, fds));
	tid = other_tid(getpid());
	ASSERT_LT(0, tid);
	ASSERT_ERRNO(EINVAL, setpgid(tid, 0));
	ASSERT_ERRNO(EINVAL, setpgid(tid, getpid()));
	/* but getpgid()/getsid() resolve it to its thread group */
	EXPECT_EQ(getpid(), getpgid(tid));
	EXPECT_EQ(getsid(0), getsid(tid));
	ASSERT_EQ(1, write(fds[1], "x", 1));
	ASSERT_EQ(0, pthread_join(th, NULL));
}

static int setpgid_other_session_fn(struct child *c)
{
	pid_t u = unused_pid();
	pid_t d;

	CHECK(u > 0);
	d = fork_child();
	CHECK(d >= 0);
	if (d == 0) {
		/* c->arg: the test's group, in the session we left */
		CHECK_ERR(setpgid(0, c->arg), EPERM);
		CHECK_ERR(setpgid(0, u), EPERM);
		CHECK(getpgid(0) == getppid());
		/* groups of our own session are fine */
		CHECK(setpgid(0, 0) == 0);
		CHECK(getpgid(0) == getpid());
		CHECK(setpgid(0, getppid()) == 0);
		CHECK(getpgid(0) == getppid());
		_exit(0);
	}
	CHECK(wait_exit(d) == 0);
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

TEST_F(session, setpgid_eperm_other_session)
{
	struct child s;

	SPAWN(&s, s.new_session = true, s.fn = setpgid_other_session_fn,
	      s.arg = getpid());
	ASSERT_REPLY(&s, 0);
	ASSERT_EQ(s.pid, getsid(s.pid));

	/* Our own child, but in another session. */
	ASSERT_ERRNO(EPERM, setpgid(s.pid, getpid()));
	ASSERT_ERRNO(EPERM, setpgid(s.pid, s.pid));
	/* We cannot join a group of another session either. */
	ASSERT_ERRNO(EPERM, setpgid(0, s.pid));
	EXPECT_EQ(getpid(), getpgid(0));
	EXPECT_EQ(s.pid, getpgid(s.pid));
	FINISH(&s);
}

static int setpgid_session_leader_fn(struct child *c)
{
	pid_t me = getpid();
	pid_t d = fork_child();

	CHECK(d >= 0);
	if (d == 0)
		for (;;)
			pause();
	/* A session leader cannot change its group, not even to itself. */
	CHECK_ERR(setpgid(0, 0), EPERM);
	CHECK_ERR(setpgid(0, me), EPERM);
	CHECK_ERR(setpgid(me, me), EPERM);
	/* nor join another group of its own session */
	CHECK(setpgid(d, d) == 0);
	CHECK(getpgid(d) == d);
	CHECK_ERR(setpgid(0, d), EPERM);
	CHECK(getpgid(0) == me);
	CHECK(getsid(0) == me);
	/* while its children may move between its groups */
	CHECK(setpgid(d, me) == 0);
	CHECK(getpgid(d) == me);
	kill(d, SIGKILL);
	CHECK(wait_exit(d) == 128 + SIGKILL);
	return 0;
}

TEST_F(session, setpgid_eperm_session_leader)
{
	struct child s;

	SPAWN(&s, s.new_session = true, s.fn = setpgid_session_leader_fn);
	EXPECT_EQ(0, wait_exit(s.pid));
}

static int grandchild_fn(struct child *c)
{
	pid_t d = fork_child();

	CHECK(d >= 0);
	if (d == 0)
		for (;;)
			pause();
	child_put_int(c, d);
	child_get_cmd(c);
	return 0;
}

TEST_F(session, setpgid_esrch_not_child)
{
	struct child a;
	int gc = -1;
	pid_t u;

	SPAWN(&a, a.fn = grandchild_fn);
	ASSERT_EQ(0, child_recv(&a, &gc, sizeof(gc)));
	ASSERT_LT(0, gc);
	ASSERT_EQ(getpid(), getpgid(gc));

	/* Neither the caller nor one of its children. */
	ASSERT_ERRNO(ESRCH, setpgid(gc, gc));
	ASSERT_ERRNO(ESRCH, setpgid(gc, getpid()));
	ASSERT_ERRNO(ESRCH, setpgid(getppid(), 0));
	ASSERT_ERRNO(ESRCH, setpgid(1, 0));
	u = unused_pid();
	ASSERT_LT(0, u);
	ASSERT_ERRNO(ESRCH, setpgid(u, 0));
	ASSERT_ERRNO(ESRCH, setpgid(u, getpid()));
	EXPECT_EQ(getpid(), getpgid(gc));
	FINISH(&a);
}

TEST_F(session, setpgid_eacces_after_exec)
{
	pid_t ctl, pid;
	char buf[16], ch = 0;
	int p[2];

	ctl = fork_child();
	ASSERT_LE(0, ctl);
	if (ctl == 0)
		for (;;)
			pause();

	ASSERT_EQ(0, pipe(p));
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		snprintf(buf, sizeof(buf), "%d", p[1]);
		close(p[0]);
		execl("/proc/self/exe", "pgrp_test", PAUSE_ARG, buf,
		      (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	/* The byte comes from the new image: execve() has completed. */
	ASSERT_EQ(0, read_full(p[0], &ch, 1, TIMEOUT_MS));
	ASSERT_EQ('r', ch);

	ASSERT_ERRNO(EACCES, setpgid(pid, pid));
	ASSERT_ERRNO(EACCES, setpgid(pid, getpid()));
	ASSERT_ERRNO(EACCES, setpgid(pid, 0));
	EXPECT_EQ(getpid(), getpgid(pid));

	/* A child that has not exec'd can still be moved. */
	ASSERT_EQ(0, setpgid(ctl, ctl));
	EXPECT_EQ(ctl, getpgid(ctl));
}

/* ------------------------------------------------------------------ */
/* kill(-pgrp), killpg(), kill(0)                                      */
/* ------------------------------------------------------------------ */

TEST_F(session, kill_pgrp_members_only)
{
	struct child a1, a2, a3, o, o2;
	sigset_t set, pend;
	pid_t u;

	/* The test itself is outside the group, and must see nothing. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));

	SPAWN(&a1, a1.pgid = 0);
	SPAWN(&a2, a2.pgid = a1.pid, a2.nthreads = 2);
	SPAWN(&a3, a3.pgid = a1.pid);
	ASSERT_EQ(0, child_init(&o));	/* a group of its own */
	o.pgid = 0;
	START(&o);
	ASSERT_EQ(0, child_init(&o2));	/* in the test's group */
	START(&o2);

	ASSERT_EQ(0, kill(-a1.pid, SIGUSR1));
	ASSERT_EQ(0, killpg(a1.pid, SIGUSR2));

	expect_rec(_metadata, "leader", &a1, 2, SIGUSR1, SIGUSR2, SI_USER,
		   getpid());
	expect_rec(_metadata, "member", &a2, 2, SIGUSR1, SIGUSR2, SI_USER,
		   getpid());
	expect_rec(_metadata, "member", &a3, 2, SIGUSR1, SIGUSR2, SI_USER,
		   getpid());
	expect_rec(_metadata, "other group", &o, 0, 0, 0, 0, 0);
	expect_rec(_metadata, "test's group", &o2, 0, 0, 0, 0, 0);
	ASSERT_EQ(0, sigpending(&pend));
	EXPECT_FALSE(sigismember(&pend, SIGUSR1));
	EXPECT_FALSE(sigismember(&pend, SIGUSR2));

	/* No such group: an unused pid, or a live pid that is no group. */
	u = unused_pid();
	ASSERT_LT(0, u);
	ASSERT_ERRNO(ESRCH, kill(-u, SIGUSR1));
	ASSERT_ERRNO(ESRCH, killpg(u, SIGUSR1));
	ASSERT_ERRNO(ESRCH, kill(-a2.pid, SIGUSR1));
	ASSERT_ERRNO(ESRCH, killpg(o2.pid, SIGUSR1));
	ASSERT_ERRNO(ESRCH, kill(-a3.pid, 0));
	expect_rec(_metadata, "member", &a2, 2, SIGUSR1, SIGUSR2, SI_USER,
		   getpid());
	expect_rec(_metadata, "test's group", &o2, 0, 0, 0, 0, 0);

	FINISH(&a1);
	FINISH(&a2);
	FINISH(&a3);
	FINISH(&o);
	FINISH(&o2);
}

static int kill_zero_fn(struct child *c)
{
	struct sigrec r;

	CHECK(kill(0, SIGUSR2) == 0);
	/* a signal to ourselves is handled before kill() returns */
	rec_snapshot(&r);
	CHECK(r.n == 1 && r.sig[0] == SIGUSR2 && r.code[0] == SI_USER);
	CHECK(r.pid[0] == getpid());
	return 0;
}

TEST_F(session, kill_zero_own_group)
{
	struct child b1, b2, o, g1, g2, g3;
	struct timespec ts = { 0, 0 };
	sigset_t set, pend;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));

	SPAWN(&b1);
	SPAWN(&b2, b2.nthreads = 1);
	SPAWN(&o, o.pgid = 0);
	SPAWN(&g1, g1.pgid = 0);
	SPAWN(&g2, g2.pgid = g1.pid);

	/* kill(0) from the test: its group is the test, b1 and b2 */
	ASSERT_EQ(0, kill(0, SIGUSR1));
	expect_rec(_metadata, "b1", &b1, 1, SIGUSR1, 0, SI_USER, getpid());
	expect_rec(_metadata, "b2", &b2, 1, SIGUSR1, 0, SI_USER, getpid());
	expect_rec(_metadata, "other group", &o, 0, 0, 0, 0, 0);
	expect_rec(_metadata, "g1", &g1, 0, 0, 0, 0, 0);
	ASSERT_EQ(0, sigpending(&pend));
	EXPECT_TRUE(sigismember(&pend, SIGUSR1));
	EXPECT_EQ(SIGUSR1, sigtimedwait(&set, NULL, &ts));

	/* kill(0) from a member of g1 */
	SPAWN(&g3, g3.pgid = g1.pid, g3.fn = kill_zero_fn);
	EXPECT_EQ(0, wait_exit(g3.pid));
	expect_rec(_metadata, "g1", &g1, 1, SIGUSR2, 0, SI_USER, g3.pid);
	expect_rec(_metadata, "g2", &g2, 1, SIGUSR2, 0, SI_USER, g3.pid);
	expect_rec(_metadata, "b1", &b1, 1, SIGUSR1, 0, SI_USER, getpid());
	expect_rec(_metadata, "other group", &o, 0, 0, 0, 0, 0);
	ASSERT_EQ(0, sigpending(&pend));
	EXPECT_FALSE(sigismember(&pend, SIGUSR2));

	FINISH(&b1);
	FINISH(&b2);
	FINISH(&o);
	FINISH(&g1);
	FINISH(&g2);
}

/* ------------------------------------------------------------------ */
/* Orphaned process groups                                             */
/* ------------------------------------------------------------------ */

static int orphan_parent_fn(struct child *c)
{
	struct ctx *t = c->data;

	CHECK(child_start(t->d) > 0);
	t->e->pgid = t->d->pid;
	CHECK(child_start(t->e) > 0);
	if (t->d->stop)
		CHECK(wait_stopped(t->d->pid) == 0);
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

/*
 * The test forks A, which starts a session and forks B and B2 into a new
 * group G of that session.  A is the only process outside G, in G's
 * session, with a child in G.  When A exits, B and B2 are adopted by the
 * test (another session) and G becomes orphaned: if a member of G is
 * stopped, every member gets SIGHUP and then SIGCONT from the kernel
 * (kill_orphaned_pgrp()); otherwise nothing.
 */
static void orphan_scenario(struct __test_metadata *_metadata, bool stop)
{
	struct child a, b, b2;
	struct ctx t = { .d = &b, .e = &b2 };

	ASSERT_EQ(0, child_init(&b));
	b.pgid = 0;
	b.no_pdeathsig = true;
	b.stop = stop;
	ASSERT_EQ(0, child_init(&b2));
	b2.no_pdeathsig = true;
	SPAWN(&a, a.new_session = true, a.fn = orphan_parent_fn, a.data = &t);
	child_forget_ends(&b);
	child_forget_ends(&b2);
	ASSERT_EQ(0, child_ready(&b));
	ASSERT_EQ(0, child_ready(&b2));
	ASSERT_REPLY(&a, 0);

	ASSERT_EQ(a.pid, getsid(b.pid));
	ASSERT_EQ(b.pid, getpgid(b.pid));
	ASSERT_EQ(b.pid, getpgid(b2.pid));
	ASSERT_EQ(a.pid, proc_stat(b.pid, 0, STAT_PPID));
	if (stop)
		ASSERT_EQ('T', proc_stat(b.pid, 0, STAT_STATE));

	FINISH(&a);
	if (stop) {
		expect_rec(_metadata, "stopped member", &b, 2, SIGHUP,
			   SIGCONT, SI_KERNEL, 0);
		expect_rec(_metadata, "running member", &b2, 2, SIGHUP,
			   SIGCONT, SI_KERNEL, 0);
		EXPECT_NE('T', proc_stat(b.pid, 0, STAT_STATE));
	} else {
		expect_rec(_metadata, "member", &b, 0, 0, 0, 0, 0);
		expect_rec(_metadata, "member", &b2, 0, 0, 0, 0, 0);
	}
	SEND(&b, 'p');
	ASSERT_REPLY(&b, getpid());
	SEND(&b2, 'p');
	ASSERT_REPLY(&b2, getpid());
	EXPECT_EQ(b.pid, getpgid(b2.pid));
	EXPECT_EQ(a.pid, getsid(b2.pid));
	FINISH(&b);
	FINISH(&b2);
}

TEST_F(session, orphaned_pgrp_sighup_sigcont)
{
	orphan_scenario(_metadata, true);
}

TEST_F(session, orphaned_pgrp_not_stopped)
{
	orphan_scenario(_metadata, false);
}

/* ------------------------------------------------------------------ */
/* F_SETOWN(-pgrp) and SIGIO                                           */
/* ------------------------------------------------------------------ */

static void check_sigio(struct __test_metadata *_metadata, int rfd, int wfd)
{
	struct child p1, p2, o, o2;
	sigset_t set, pend;
	char ch;
	pid_t u;
	int fl;

	/* The test is not in the group and must not get SIGIO either. */
	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));

	SPAWN(&p1, p1.pgid = 0);
	SPAWN(&p2, p2.pgid = p1.pid, p2.nthreads = 1);
	SPAWN(&o, o.pgid = 0);
	SPAWN(&o2);

	ASSERT_EQ(0, fcntl(rfd, F_SETOWN, -p1.pid));
	ASSERT_EQ(-p1.pid, fcntl(rfd, F_GETOWN));
	fl = fcntl(rfd, F_GETFL);
	ASSERT_LE(0, fl);
	ASSERT_EQ(0, fcntl(rfd, F_SETFL, fl | O_ASYNC | O_NONBLOCK));
	ASSERT_EQ(1, write(wfd, "x", 1));

	expect_rec(_metadata, "leader", &p1, 1, SIGIO, 0, SI_KERNEL, 0);
	expect_rec(_metadata, "member", &p2, 1, SIGIO, 0, SI_KERNEL, 0);
	expect_rec(_metadata, "other group", &o, 0, 0, 0, 0, 0);
	expect_rec(_metadata, "test's group", &o2, 0, 0, 0, 0, 0);
	ASSERT_EQ(0, sigpending(&pend));
	EXPECT_FALSE(sigismember(&pend, SIGIO));
	ASSERT_EQ(1, read(rfd, &ch, 1));

	/*
	 * F_SETOWN only needs a live pid, not a process group: with a
	 * member's pid as "group", SIGIO goes nowhere.  F_GETOWN reports an
	 * owner only while a task of that type is attached to it
	 * (f_getown() checks pid_task()), so it says 0.
	 */
	ASSERT_EQ(0, fcntl(rfd, F_SETOWN, -p2.pid));
	EXPECT_EQ(0, fcntl(rfd, F_GETOWN));
	ASSERT_EQ(1, write(wfd, "x", 1));
	expect_rec(_metadata, "leader", &p1, 1, SIGIO, 0, SI_KERNEL, 0);
	expect_rec(_metadata, "member", &p2, 1, SIGIO, 0, SI_KERNEL, 0);
	expect_rec(_metadata, "other group", &o, 0, 0, 0, 0, 0);
	ASSERT_EQ(1, read(rfd, &ch, 1));

	/* A failed F_SETOWN leaves the owner alone. */
	ASSERT_EQ(0, fcntl(rfd, F_SETOWN, -p1.pid));
	u = unused_pid();
	ASSERT_LT(0, u);
	ASSERT_ERRNO(ESRCH, fcntl(rfd, F_SETOWN, -u));
	EXPECT_EQ(-p1.pid, fcntl(rfd, F_GETOWN));

	/* Once the group has died out, there is no owner to report. */
	FINISH(&p1);
	FINISH(&p2);
	EXPECT_EQ(0, fcntl(rfd, F_GETOWN));
	ASSERT_EQ(1, write(wfd, "x", 1));
	expect_rec(_metadata, "other group", &o, 0, 0, 0, 0, 0);
	expect_rec(_metadata, "test's group", &o2, 0, 0, 0, 0, 0);
	ASSERT_EQ(0, sigpending(&pend));
	EXPECT_FALSE(sigismember(&pend, SIGIO));

	FINISH(&o);
	FINISH(&o2);
}

TEST_F(session, fsetown_pgrp_sigio_pipe)
{
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	check_sigio(_metadata, p[0], p[1]);
	close(p[0]);
	close(p[1]);
}

TEST_F(session, fsetown_pgrp_sigio_socket)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		SKIP(return, "socketpair(AF_UNIX): %s", strerror(errno));
	check_sigio(_metadata, sv[0], sv[1]);
	close(sv[0]);
	close(sv[1]);
}

int main(int argc, char **argv)
{
	/* setpgid_eacces_after_exec re-executes us with PAUSE_ARG. */
	if (argc == 3 && !strcmp(argv[1], PAUSE_ARG))
		return pause_main(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
