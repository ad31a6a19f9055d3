// SPDX-License-Identifier: GPL-2.0
/*
 * Controlling terminals on a pty.
 *
 * This program pins the syscall-level behaviour of Linux 6.12 for
 *   - controlling terminals on a pty: TIOCSCTTY, TIOCNOTTY, TIOCGSID,
 *     tcsetpgrp()/tcgetpgrp() and the SIGHUP sent to the foreground
 *     group when the session leader exits.
 *
 * Every one of them resolves a process group or a session number, or walks
 * the tasks attached to one, so this is part of the regression net for
 * changes to PID allocation and lookup.  Values, errnos, si_code and
 * si_pid are checked exactly.  Where 6.12 does something surprising the
 * test pins it with a comment naming the code responsible.
 *
 * The tests need a devpts instance behind /dev/ptmx and skip without one;
 * tty_tiocsctty_eperm_other_session needs root (CAP_SYS_ADMIN) too.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/types.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_SESSION	/* util.h defines FIXTURE(session) */
#include "util.h"

static pid_t tiocgsid(int fd)
{
	pid_t sid;

	if (ioctl(fd, TIOCGSID, &sid))
		return -1;
	return sid;
}

static pid_t tiocgpgrp(int fd)
{
	pid_t pgrp;

	if (ioctl(fd, TIOCGPGRP, &pgrp))
		return -1;
	return pgrp;
}

/* ------------------------------------------------------------------ */
/* Controlling terminals                                               */
/* ------------------------------------------------------------------ */

static int tiocsctty_leader_fn(struct child *c)
{
	struct ctx *t = c->data;
	pid_t me = getpid(), sid;
	int fd = open(t->pty->name, O_RDWR | O_NOCTTY | O_CLOEXEC);

	CHECK(fd >= 0);
	/* O_NOCTTY: opening did not make it ours */
	CHECK(devtty_errno() == ENXIO);
	CHECK_ERR(ioctl(fd, TIOCGSID, &sid), ENOTTY);
	CHECK_ERR(tcgetpgrp(fd), ENOTTY);

	CHECK(ioctl(fd, TIOCSCTTY, 0) == 0);
	CHECK(devtty_errno() == 0);
	CHECK(tcgetsid(fd) == me);
	CHECK(tcgetpgrp(fd) == me);
	CHECK(proc_stat(0, 0, STAT_TTY_NR) == tty_nr_of(fd));
	CHECK(proc_stat(0, 0, STAT_TPGID) == me);
	/* Again on our own controlling tty: a successful no-op. */
	CHECK(ioctl(fd, TIOCSCTTY, 0) == 0);
	CHECK(tcgetsid(fd) == me);
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

TEST_F(session, tty_tiocsctty_leader)
{
	struct pty pty;
	struct ctx t = { .pty = &pty };
	struct child c;
	int fd;

	if (pty_open(&pty))
		SKIP(return, "no pty: %s", strerror(errno));
	SPAWN(&c, c.new_session = true, c.fn = tiocsctty_leader_fn,
	      c.data = &t);
	ASSERT_REPLY(&c, 0);

	/* The master reports the slave's session and foreground group. */
	EXPECT_EQ(c.pid, tiocgsid(pty.master));
	EXPECT_EQ(c.pid, tiocgpgrp(pty.master));
	EXPECT_EQ(c.pid, proc_stat(c.pid, 0, STAT_TPGID));
	/* The slave answers these only to its own session. */
	fd = open(pty.name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_ERRNO(ENOTTY, tiocgsid(fd));
	ASSERT_ERRNO(ENOTTY, tcgetpgrp(fd));

	FINISH(&c);
	/* The leader's exit dissociated the tty from the session. */
	ASSERT_ERRNO(ENOTTY, tiocgsid(pty.master));
	EXPECT_EQ(0, tiocgpgrp(pty.master));
	close(fd);
}

static int open_ctty_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd;

	fd = open(t->pty->name, O_RDWR | O_NOCTTY);
	CHECK(fd >= 0);
	close(fd);
	CHECK(devtty_errno() == ENXIO);
	/* without O_NOCTTY */
	fd = open(t->pty->name, O_RDWR);
	CHECK(fd >= 0);
	if (c->arg) {
		CHECK(devtty_errno() == 0);
		CHECK(tcgetsid(fd) == getpid());
	} else {
		CHECK(devtty_errno() == ENXIO);
	}
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

/*
 * open() without O_NOCTTY makes the tty the controlling one only for a
 * session leader without one, and only if the tty has no session yet.
 */
TEST_F(session, tty_open_sets_ctty)
{
	struct pty pty;
	struct ctx t = { .pty = &pty };
	struct child c1, c2, c3;

	if (pty_open(&pty))
		SKIP(return, "no pty: %s", strerror(errno));
	SPAWN(&c1, c1.new_session = true, c1.fn = open_ctty_fn, c1.data = &t,
	      c1.arg = 1);
	ASSERT_REPLY(&c1, 0);
	EXPECT_EQ(c1.pid, tiocgsid(pty.master));

	ASSERT_EQ(0, child_init(&c2));	/* not a session leader */
	c2.pgid = 0;
	c2.fn = open_ctty_fn;
	c2.data = &t;
	START(&c2);
	ASSERT_REPLY(&c2, 0);

	ASSERT_EQ(0, child_init(&c3));	/* the tty is taken */
	c3.new_session = true;
	c3.fn = open_ctty_fn;
	c3.data = &t;
	START(&c3);
	ASSERT_REPLY(&c3, 0);
	EXPECT_EQ(c1.pid, tiocgsid(pty.master));

	FINISH(&c1);
	FINISH(&c2);
	FINISH(&c3);
}

static int tiocsctty_not_leader_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd = open(t->pty->name, O_RDWR | O_NOCTTY);

	CHECK(fd >= 0);
	CHECK(getpgid(0) == getpid());
	CHECK(getsid(0) != getpid());
	CHECK_ERR(ioctl(fd, TIOCSCTTY, 0), EPERM);
	/* arg 1 does not help, even for root */
	CHECK_ERR(ioctl(fd, TIOCSCTTY, 1), EPERM);
	CHECK(devtty_errno() == ENXIO);
	return 0;
}

static int tiocsctty_has_ctty_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd1 = ctty_open(t->pty->name);
	int fd2 = open(t->pty2->name, O_RDWR | O_NOCTTY);

	CHECK(fd2 >= 0);
	CHECK_ERR(ioctl(fd2, TIOCSCTTY, 0), EPERM);
	CHECK_ERR(ioctl(fd2, TIOCSCTTY, 1), EPERM);
	CHECK(tcgetsid(fd1) == getpid());
	CHECK_ERR(tcgetsid(fd2), ENOTTY);
	return 0;
}

TEST_F(session, tty_tiocsctty_eperm_not_leader)
{
	struct pty pty, pty2;
	struct ctx t = { .pty = &pty, .pty2 = &pty2 };
	struct child c1, c2;

	if (pty_open(&pty))
		SKIP(return, "no pty: %s", strerror(errno));
	if (pty_open(&pty2))
		SKIP(return, "no pty: %s", strerror(errno));
	SPAWN(&c1, c1.pgid = 0, c1.fn = tiocsctty_not_leader_fn, c1.data = &t);
	EXPECT_EQ(0, wait_exit(c1.pid));
	ASSERT_ERRNO(ENOTTY, tiocgsid(pty.master));

	/* A session leader that already has a controlling tty. */
	SPAWN(&c2, c2.new_session = true, c2.fn = tiocsctty_has_ctty_fn,
	      c2.data = &t);
	EXPECT_EQ(0, wait_exit(c2.pid));
	ASSERT_ERRNO(ENOTTY, tiocgsid(pty2.master));
}

static int steal_victim_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd = ctty_open(t->pty->name);
	struct sigrec r;
	pid_t sid;

	child_put_int(c, 0);
	child_get_cmd(c);
	child_put_int(c, devtty_errno());
	child_put_int(c, ioctl(fd, TIOCGSID, &sid) ? errno : 0);
	rec_snapshot(&r);
	child_put_int(c, r.n);
	child_get_cmd(c);
	return 0;
}

static int steal_unpriv_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd = open(t->pty->name, O_RDWR | O_NOCTTY);

	CHECK(fd >= 0);
	/* Even root needs arg 1 to take another session's tty ... */
	CHECK_ERR(ioctl(fd, TIOCSCTTY, 0), EPERM);
	/* ... and arg 1 needs CAP_SYS_ADMIN. */
	drop_privs(UID_A, c->parent, true);
	CHECK_ERR(ioctl(fd, TIOCSCTTY, 1), EPERM);
	CHECK_ERR(ioctl(fd, TIOCSCTTY, 0), EPERM);
	CHECK(devtty_errno() == ENXIO);
	return 0;
}

static int steal_root_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd = open(t->pty->name, O_RDWR | O_NOCTTY);

	CHECK(fd >= 0);
	CHECK(ioctl(fd, TIOCSCTTY, 1) == 0);
	CHECK(tcgetsid(fd) == getpid());
	CHECK(tcgetpgrp(fd) == getpid());
	CHECK(devtty_errno() == 0);
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

TEST_F(session, tty_tiocsctty_eperm_other_session)
{
	struct pty pty;
	struct ctx t = { .pty = &pty };
	struct child v, u, s;

	if (geteuid())
		SKIP(return, "needs root");
	if (pty_open(&pty))
		SKIP(return, "no pty: %s", strerror(errno));
	SPAWN(&v, v.new_session = true, v.fn = steal_victim_fn, v.data = &t);
	ASSERT_REPLY(&v, 0);
	ASSERT_EQ(v.pid, tiocgsid(pty.master));

	SPAWN(&u, u.new_session = true, u.fn = steal_unpriv_fn, u.data = &t);
	EXPECT_EQ(0, wait_exit(u.pid));
	EXPECT_EQ(v.pid, tiocgsid(pty.master));

	/* With CAP_SYS_ADMIN and arg 1 the tty is stolen. */
	SPAWN(&s, s.new_session = true, s.fn = steal_root_fn, s.data = &t);
	ASSERT_REPLY(&s, 0);
	EXPECT_EQ(s.pid, tiocgsid(pty.master));
	EXPECT_EQ(s.pid, tiocgpgrp(pty.master));

	/* The old session lost it, without any signal. */
	SEND(&v, 'g');
	ASSERT_REPLY(&v, ENXIO);
	ASSERT_REPLY(&v, ENOTTY);
	ASSERT_REPLY(&v, 0);
	EXPECT_EQ(0, proc_stat(v.pid, 0, STAT_TTY_NR));
	FINISH(&v);
	FINISH(&s);
}

static int notty_leader_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd = ctty_open(t->pty->name);
	struct sigrec r;

	CHECK(child_start(t->d) > 0);
	CHECK(child_start(t->e) > 0);
	child_put_int(c, 0);
	child_get_cmd(c);
	CHECK(ioctl(fd, TIOCNOTTY) == 0);
	/* SIGHUP and SIGCONT to ourselves were handled on return */
	rec_snapshot(&r);
	child_put(c, &r, sizeof(r));
	child_put_int(c, devtty_errno());
	child_put_int(c, ioctl(fd, TIOCNOTTY) ? errno : 0);
	child_get_cmd(c);
	return 0;
}

/*
 * TIOCNOTTY by the session leader sends SIGHUP and SIGCONT to the
 * foreground group (itself included) as if from the leader: si_code
 * SI_USER, si_pid the leader (disassociate_ctty(0) -> kill_pgrp(.., 0)),
 * and takes the tty away from the whole session.
 */
TEST_F(session, tty_tiocnotty_leader)
{
	struct pty pty;
	struct child c, d, e;
	struct ctx t = { .pty = &pty, .d = &d, .e = &e };
	struct sigrec r;

	if (pty_open(&pty))
		SKIP(return, "no pty: %s", strerror(errno));
	ASSERT_EQ(0, child_init(&d));	/* foreground: the leader's group */
	ASSERT_EQ(0, child_init(&e));	/* background: a group of its own */
	e.pgid = 0;
	SPAWN(&c, c.new_session = true, c.fn = notty_leader_fn, c.data = &t);
	child_forget_ends(&d);
	child_forget_ends(&e);
	ASSERT_EQ(0, child_ready(&d));
	ASSERT_EQ(0, child_ready(&e));
	ASSERT_REPLY(&c, 0);
	EXPECT_EQ(c.pid, getpgid(d.pid));
	EXPECT_EQ(e.pid, getpgid(e.pid));
	EXPECT_EQ(c.pid, getsid(e.pid));
	EXPECT_EQ(c.pid, proc_stat(d.pid, 0, STAT_TPGID));
	EXPECT_EQ(c.pid, proc_stat(e.pid, 0, STAT_TPGID));
	EXPECT_NE(0, proc_stat(d.pid, 0, STAT_TTY_NR));

	SEND(&c, 'g');
	ASSERT_EQ(0, child_recv(&c, &r, sizeof(r)));
	check_rec(_metadata, "leader", &r, 2, SIGHUP, SIGCONT, SI_USER, c.pid);
	ASSERT_REPLY(&c, ENXIO);
	ASSERT_REPLY(&c, ENOTTY);
	expect_rec(_metadata, "foreground", &d, 2, SIGHUP, SIGCONT, SI_USER,
		   c.pid);
	expect_rec(_metadata, "background", &e, 0, 0, 0, 0, 0);
	EXPECT_EQ(0, proc_stat(d.pid, 0, STAT_TTY_NR));
	EXPECT_EQ(0, proc_stat(e.pid, 0, STAT_TTY_NR));
	EXPECT_EQ(-1, proc_stat(d.pid, 0, STAT_TPGID));
	ASSERT_ERRNO(ENOTTY, tiocgsid(pty.master));
	EXPECT_EQ(0, tiocgpgrp(pty.master));
	FINISH(&c);
}

static int notty_member_fn(struct child *c)
{
	struct ctx *t = c->data;
	pid_t sid;
	int fd;

	child_get_cmd(c);
	CHECK(devtty_errno() == 0);
	fd = open(t->pty->name, O_RDWR | O_NOCTTY);
	CHECK(fd >= 0);
	CHECK(tcgetsid(fd) == getsid(0));
	CHECK(ioctl(fd, TIOCNOTTY) == 0);
	CHECK(devtty_errno() == ENXIO);
	CHECK_ERR(ioctl(fd, TIOCNOTTY), ENOTTY);
	CHECK_ERR(ioctl(fd, TIOCGSID, &sid), ENOTTY);
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

static int notty_member_leader_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd = ctty_open(t->pty->name);
	struct sigrec r;

	CHECK(child_start(t->d) > 0);
	child_put_int(c, 0);
	child_get_cmd(c);
	rec_snapshot(&r);
	child_put_int(c, devtty_errno());
	child_put_int(c, r.n);
	child_put_int(c, tcgetsid(fd));
	child_get_cmd(c);
	return 0;
}

/* TIOCNOTTY by another session member detaches only that process. */
TEST_F(session, tty_tiocnotty_member)
{
	struct pty pty;
	struct child c, d;
	struct ctx t = { .pty = &pty, .d = &d };

	if (pty_open(&pty))
		SKIP(return, "no pty: %s", strerror(errno));
	ASSERT_EQ(0, child_init(&d));
	d.pgid = 0;
	d.fn = notty_member_fn;
	d.data = &t;
	SPAWN(&c, c.new_session = true, c.fn = notty_member_leader_fn,
	      c.data = &t);
	child_forget_ends(&d);
	ASSERT_EQ(0, child_ready(&d));
	ASSERT_REPLY(&c, 0);
	EXPECT_NE(0, proc_stat(d.pid, 0, STAT_TTY_NR));

	SEND(&d, 'g');
	ASSERT_REPLY(&d, 0);
	EXPECT_EQ(0, proc_stat(d.pid, 0, STAT_TTY_NR));
	EXPECT_NE(0, proc_stat(c.pid, 0, STAT_TTY_NR));

	SEND(&c, 'g');
	ASSERT_REPLY(&c, 0);		/* /dev/tty still opens */
	ASSERT_REPLY(&c, 0);		/* no signals */
	ASSERT_REPLY(&c, c.pid);	/* still its session's tty */
	EXPECT_EQ(c.pid, tiocgsid(pty.master));
	EXPECT_EQ(c.pid, tiocgpgrp(pty.master));
	FINISH(&c);
}

static int tcsetpgrp_fn(struct child *c)
{
	struct ctx *t = c->data;
	pid_t u = unused_pid(), me = getpid();
	int fd = ctty_open(t->pty->name);

	CHECK(u > 0);
	CHECK(child_start(t->d) > 0);
	CHECK(child_start(t->e) > 0);
	child_put_int(c, 0);
	child_get_cmd(c);

	CHECK(tcgetpgrp(fd) == me);
	/* c->arg: the test's group, in another session */
	CHECK_ERR(tcsetpgrp(fd, c->arg), EPERM);
	CHECK_ERR(tcsetpgrp(fd, u), ESRCH);
	CHECK_ERR(tcsetpgrp(fd, -1), EINVAL);
	CHECK(tcgetpgrp(fd) == me);
	CHECK(tcsetpgrp(fd, t->d->pid) == 0);
	CHECK(tcgetpgrp(fd) == t->d->pid);
	CHECK(proc_stat(0, 0, STAT_TPGID) == t->d->pid);
	child_put_int(c, 0);
	child_get_cmd(c);

	/*
	 * Now we are in the background, and our group is orphaned (our
	 * parent is in another session): instead of SIGTTOU, tcsetpgrp()
	 * fails, and tiocspgrp() turns the -EIO of tty_check_change()
	 * into ENOTTY.
	 */
	CHECK_ERR(tcsetpgrp(fd, me), ENOTTY);
	CHECK(tcgetpgrp(fd) == t->d->pid);
	/* With SIGTTOU ignored, a background group may take it back. */
	CHECK(signal(SIGTTOU, SIG_IGN) != SIG_ERR);
	CHECK(tcsetpgrp(fd, me) == 0);
	CHECK(tcgetpgrp(fd) == me);
	/*
	 * The new foreground "group" need only be some process of the
	 * session: session_of_pgrp() falls back to PIDTYPE_PID.
	 */
	CHECK(getpgid(t->e->pid) == me);
	CHECK(tcsetpgrp(fd, t->e->pid) == 0);
	CHECK(tcgetpgrp(fd) == t->e->pid);
	CHECK(tcsetpgrp(fd, me) == 0);
	CHECK(tcgetpgrp(fd) == me);
	return 0;
}

TEST_F(session, tty_tcsetpgrp)
{
	struct pty pty;
	struct child c, d, e;
	struct ctx t = { .pty = &pty, .d = &d, .e = &e };

	if (pty_open(&pty))
		SKIP(return, "no pty: %s", strerror(errno));
	ASSERT_EQ(0, child_init(&d));	/* another group of the session */
	d.pgid = 0;
	ASSERT_EQ(0, child_init(&e));	/* member of the leader's group */
	SPAWN(&c, c.new_session = true, c.fn = tcsetpgrp_fn, c.data = &t,
	      c.arg = getpid());
	child_forget_ends(&d);
	child_forget_ends(&e);
	ASSERT_EQ(0, child_ready(&d));
	ASSERT_EQ(0, child_ready(&e));
	ASSERT_REPLY(&c, 0);
	EXPECT_EQ(c.pid, tiocgpgrp(pty.master));

	SEND(&c, 'g');
	ASSERT_REPLY(&c, 0);
	EXPECT_EQ(d.pid, tiocgpgrp(pty.master));
	EXPECT_EQ(c.pid, tiocgsid(pty.master));
	EXPECT_EQ(d.pid, proc_stat(d.pid, 0, STAT_TPGID));
	EXPECT_EQ(d.pid, proc_stat(e.pid, 0, STAT_TPGID));

	SEND(&c, 'g');
	EXPECT_EQ(0, wait_exit(c.pid));
}

static int hangup_leader_fn(struct child *c)
{
	struct ctx *t = c->data;
	int fd = ctty_open(t->pty->name);

	CHECK(child_start(t->d) > 0);
	CHECK(child_start(t->e) > 0);
	child_put_int(c, 0);
	child_get_cmd(c);
	CHECK(tcsetpgrp(fd, t->d->pid) == 0);
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

/*
 * When the session leader exits, its controlling pty's foreground group
 * gets SIGHUP from the kernel (SI_KERNEL) and nothing else; for a pty
 * there is no SIGCONT and no vhangup (disassociate_ctty(1)).  Other
 * groups get nothing.  The session keeps its id after the leader died.
 */
TEST_F(session, tty_hangup_on_leader_exit)
{
	struct pty pty;
	struct child l, m, n;
	struct ctx t = { .pty = &pty, .d = &m, .e = &n };

	if (pty_open(&pty))
		SKIP(return, "no pty: %s", strerror(errno));
	ASSERT_EQ(0, child_init(&m));
	m.pgid = 0;
	m.no_pdeathsig = true;
	ASSERT_EQ(0, child_init(&n));
	n.pgid = 0;
	n.no_pdeathsig = true;
	SPAWN(&l, l.new_session = true, l.fn = hangup_leader_fn, l.data = &t);
	child_forget_ends(&m);
	child_forget_ends(&n);
	ASSERT_EQ(0, child_ready(&m));
	ASSERT_EQ(0, child_ready(&n));
	ASSERT_REPLY(&l, 0);
	SEND(&l, 'g');
	ASSERT_REPLY(&l, 0);
	EXPECT_EQ(m.pid, tiocgpgrp(pty.master));
	EXPECT_EQ(l.pid, getsid(m.pid));
	EXPECT_EQ(m.pid, proc_stat(m.pid, 0, STAT_TPGID));
	EXPECT_NE(0, proc_stat(m.pid, 0, STAT_TTY_NR));

	FINISH(&l);
	expect_rec(_metadata, "foreground", &m, 1, SIGHUP, 0, SI_KERNEL, 0);
	expect_rec(_metadata, "background", &n, 0, 0, 0, 0, 0);
	EXPECT_EQ(0, proc_stat(m.pid, 0, STAT_TTY_NR));
	EXPECT_EQ(-1, proc_stat(m.pid, 0, STAT_TPGID));
	EXPECT_EQ(0, proc_stat(n.pid, 0, STAT_TTY_NR));
	ASSERT_ERRNO(ENOTTY, tiocgsid(pty.master));

	/* The dead leader's pid still names the session. */
	ASSERT_ERRNO(ESRCH, kill(l.pid, 0));
	EXPECT_EQ(l.pid, getsid(m.pid));
	EXPECT_EQ(l.pid, getsid(n.pid));
	/* Both were adopted by the test, a subreaper. */
	SEND(&m, 'p');
	ASSERT_REPLY(&m, getpid());
	SEND(&n, 'p');
	ASSERT_REPLY(&n, getpid());
	FINISH(&m);
	FINISH(&n);
}

TEST_HARNESS_MAIN
