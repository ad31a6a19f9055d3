// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions, process groups and the interfaces that walk them.
 *
 * This file pins the syscall-level behaviour of Linux 6.12 for
 *   - setsid(), setpgid(), getsid(), getpgid();
 *   - kill(-pgrp), killpg() and kill(0, sig);
 *   - setpriority()/getpriority() with PRIO_PROCESS, PRIO_PGRP and
 *     PRIO_USER, down to single threads and unprivileged callers;
 *   - ioprio_set()/ioprio_get() with IOPRIO_WHO_PGRP and IOPRIO_WHO_USER;
 *   - controlling terminals on a pty: TIOCSCTTY, TIOCNOTTY, TIOCGSID,
 *     tcsetpgrp()/tcgetpgrp() and the SIGHUP sent to the foreground
 *     group when the session leader exits;
 *   - SIGHUP + SIGCONT for a newly orphaned process group that has a
 *     stopped member;
 *   - F_SETOWN(-pgrp) + O_ASYNC delivering SIGIO to a process group.
 *
 * Every one of them resolves a pid, a process group or a session number,
 * or walks the tasks attached to one (or all threads of one user), so this
 * is the regression net for changes to PID allocation and lookup and to
 * the per-user thread lists.  Values, errnos, si_code and si_pid are
 * checked exactly.  Where 6.12 does something surprising the test pins it
 * with a comment naming the code responsible.
 *
 * Each test body runs in a process group of its own and is a child
 * subreaper.  Helper processes talk to it over pipes, record the signals
 * they receive (number, si_code, si_pid, in the order handled), die with
 * their parent (PR_SET_PDEATHSIG) or after CHILD_ALARM seconds at the
 * latest, and are killed and reaped by the fixture teardown.  Every wait
 * is bounded by TIMEOUT_MS.
 *
 * Most tests need root (CAP_SETUID, CAP_SYS_NICE, CAP_SYS_ADMIN) and a
 * devpts instance behind /dev/ptmx; they skip without them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/ioprio.h>

#include "kselftest_harness.h"
#include "../lib/util.h"

#define UID_A		4242	/* unprivileged owners of helper processes */
#define UID_B		4343
#define UID_NONE	4545	/* no process ever runs with this uid */
#define TIMEOUT_MS	5000	/* bound for every wait of a test */
#define CHILD_ALARM	20	/* helpers are SIGALRMed after this (s) */
#define PAUSE_ARG	"--session-test-pause"

/* ------------------------------------------------------------------ */
/* Small utilities                                                     */
/* ------------------------------------------------------------------ */

/* The thread ids of @pid, at most @max of them; returns how many. */
static int list_tids(pid_t pid, pid_t *tids, int max)
{
	struct dirent *e;
	char path[64];
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n < max)
			tids[n] = atoi(e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* Some thread of @pid that is not its thread-group leader, or -1. */
static pid_t other_tid(pid_t pid)
{
	pid_t tids[16];
	int i, n = list_tids(pid, tids, 16);

	for (i = 0; i < n && i < 16; i++)
		if (tids[i] != pid)
			return tids[i];
	return -1;
}

/* A pid that no task uses: a child's, once it has been reaped. */
static pid_t unused_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return -1;
	return pid;
}

/* Bounded waitpid(): exit status, 128 + signal, or -1 on timeout. */
static int wait_exit(pid_t pid)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
						   128 + WTERMSIG(status);
		if (r < 0)
			return -1;
		usleep(5000);
	} while (now_ms() < deadline);
	return -1;
}

/* Bounded wait until the child @pid is stopped. */
static int wait_stopped(pid_t pid)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG | WUNTRACED);

		if (r == pid)
			return WIFSTOPPED(status) ? 0 : -1;
		if (r < 0)
			return -1;
		usleep(5000);
	} while (now_ms() < deadline);
	return -1;
}

static long sys_getpriority(int which, int who)
{
	return syscall(SYS_getpriority, which, who);
}

static int sys_ioprio_set(int which, int who, int ioprio)
{
	return syscall(SYS_ioprio_set, which, who, ioprio);
}

static int sys_ioprio_get(int which, int who)
{
	return syscall(SYS_ioprio_get, which, who);
}

/* ------------------------------------------------------------------ */
/* Signal recording                                                    */
/* ------------------------------------------------------------------ */

#define REC_MAX 8

struct sigrec {
	int n;
	int sig[REC_MAX];
	int code[REC_MAX];
	int pid[REC_MAX];
};

static struct sigrec rec;

static const int rec_signals[] = { SIGHUP, SIGUSR1, SIGUSR2, SIGCONT, SIGIO };

static void rec_handler(int sig, siginfo_t *si, void *uc)
{
	int i = rec.n;

	if (i < REC_MAX) {
		rec.sig[i] = sig;
		rec.code[i] = si->si_code;
		rec.pid[i] = si->si_pid;
	}
	rec.n = i + 1;
}

static int rec_install(void)
{
	struct sigaction sa = {
		.sa_sigaction = rec_handler,
		.sa_flags = SA_SIGINFO | SA_RESTART,
	};
	size_t i;

	memset(&rec, 0, sizeof(rec));
	/*
	 * All signals are blocked while a handler runs, so handlers never
	 * nest and the record shows the order the kernel dequeued them in.
	 */
	sigfillset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(rec_signals); i++)
		if (sigaction(rec_signals[i], &sa, NULL))
			return -1;
	return 0;
}

static void rec_snapshot(struct sigrec *r)
{
	sigset_t all, old;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	memcpy(r, &rec, sizeof(*r));
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* ------------------------------------------------------------------ */
/* Helper processes                                                    */
/* ------------------------------------------------------------------ */

/* The same in the test body. */
#define ASSERT_ERRNO(err, expr) do {					\
	long __r;							\
	errno = 0;							\
	__r = (long)(expr);						\
	ASSERT_EQ(-1, __r) TH_LOG("%s did not fail", #expr);		\
	ASSERT_EQ((err), errno) TH_LOG("%s: %s", #expr, strerror(errno)); \
} while (0)

struct child {
	/* set by the test between child_init() and child_start() */
	int pgid;		/* -1: stay, 0: new group, >0: join it */
	bool new_session;	/* setsid() */
	uid_t uid;		/* non-zero: drop to this uid and gid */
	int nthreads;		/* extra threads, all signals blocked */
	bool no_pdeathsig;	/* the parent is going to exit on purpose */
	bool stop;		/* SIGSTOP itself after reporting ready */
	int (*fn)(struct child *c);	/* instead of the command loop */
	void *data;
	long arg;
	/* filled in by child_init(), child_start() and child_ready() */
	pid_t pid;
	pid_t parent;
	int cmd[2];		/* commands, parent -> child */
	int rep[2];		/* replies, child -> parent */
};

/* Child side of the pipes. */
static void child_put(struct child *c, const void *buf, size_t len)
{
	if (write_full(c->rep[1], buf, len))
		_exit(5);
}

static void child_put_int(struct child *c, int v)
{
	child_put(c, &v, sizeof(v));
}

static char child_get_cmd(struct child *c)
{
	char cmd;

	if (read_full(c->cmd[0], &cmd, 1, CHILD_ALARM * 1000))
		_exit(4);
	return cmd;
}

static void drop_privs(uid_t uid, pid_t parent, bool pdeathsig)
{
	struct rlimit rl = { 0, 0 };

	/* With RLIMIT_NICE 0 an unprivileged task may not lower its nice. */
	CHECK(setrlimit(RLIMIT_NICE, &rl) == 0);
	CHECK(setgroups(0, NULL) == 0);
	CHECK(setresgid(uid, uid, uid) == 0);
	CHECK(setresuid(uid, uid, uid) == 0);
	/* A credential change clears the parent-death signal. */
	if (pdeathsig) {
		CHECK(prctl(PR_SET_PDEATHSIG, SIGKILL) == 0);
		CHECK(getppid() == parent);
	}
}

static void __attribute__((noreturn)) child_main(struct child *c)
{
	sigset_t set;
	int i;

	close(c->cmd[1]);
	close(c->rep[0]);
	if (!c->no_pdeathsig) {
		CHECK(prctl(PR_SET_PDEATHSIG, SIGKILL) == 0);
		CHECK(getppid() == c->parent);
	}
	alarm(CHILD_ALARM);
	CHECK(rec_install() == 0);
	sigemptyset(&set);
	CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);
	if (c->new_session)
		CHECK(setsid() == getpid());
	if (c->pgid >= 0)
		CHECK(setpgid(0, c->pgid) == 0);
	if (c->uid)
		drop_privs(c->uid, c->parent, !c->no_pdeathsig);
	/* Extra threads block everything: signals go to the main thread. */
	sigfillset(&set);
	CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);
	for (i = 0; i < c->nthreads; i++) {
		pthread_t t;

		CHECK(pthread_create(&t, NULL, idle_thread, NULL) == 0);
	}
	sigemptyset(&set);
	CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);

	child_put_int(c, getpid());		/* ready */
	if (c->stop)
		kill(getpid(), SIGSTOP);
	if (c->fn)
		_exit(c->fn(c));

	for (;;) {
		struct sigrec r;

		switch (child_get_cmd(c)) {
		case 'q':			/* signals received so far */
			rec_snapshot(&r);
			child_put(c, &r, sizeof(r));
			break;
		case 'p':			/* re-arm pdeathsig, get ppid */
			CHECK(prctl(PR_SET_PDEATHSIG, SIGKILL) == 0);
			child_put_int(c, getppid());
			break;
		case 'x':
			_exit(0);
		default:
			_exit(3);
		}
	}
}

/* Parent side. */
static int child_init(struct child *c)
{
	memset(c, 0, sizeof(*c));
	c->pgid = -1;
	c->pid = -1;
	if (pipe2(c->cmd, O_CLOEXEC))
		return -1;
	return pipe2(c->rep, O_CLOEXEC);
}

/* Close our copies of the child's pipe ends, once it has been forked. */
static void child_forget_ends(struct child *c)
{
	close(c->cmd[0]);
	close(c->rep[1]);
	c->cmd[0] = c->rep[1] = -1;
}

static pid_t child_start(struct child *c)
{
	pid_t pid;

	c->parent = getpid();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		child_main(c);
	c->pid = pid;
	child_forget_ends(c);
	/* The shell idiom: set the group from both sides, no race. */
	if (c->pgid >= 0 && !c->new_session)
		setpgid(pid, c->pgid);
	return pid;
}

static int child_send_cmd(struct child *c, char cmd)
{
	return write_full(c->cmd[1], &cmd, 1);
}

static int child_recv(struct child *c, void *buf, size_t len)
{
	return read_full(c->rep[0], buf, len, TIMEOUT_MS);
}

/* Wait for the "ready" message, which carries the child's pid. */
static int child_ready(struct child *c)
{
	int pid;

	if (child_recv(c, &pid, sizeof(pid)))
		return -1;
	if (c->pid > 0 && pid != c->pid)
		return -1;
	c->pid = pid;
	return 0;
}

static int child_query(struct child *c, struct sigrec *r)
{
	if (child_send_cmd(c, 'q'))
		return -1;
	return child_recv(c, r, sizeof(*r));
}

#define START(c) do {							\
	ASSERT_LT(0, child_start(c));					\
	ASSERT_EQ(0, child_ready(c));					\
} while (0)

#define ASSERT_REPLY(c, expected) do {					\
	int __reply = INT_MIN;						\
	ASSERT_EQ(0, child_recv((c), &__reply, sizeof(__reply)))	\
		TH_LOG("no reply from child %d", (c)->pid);		\
	ASSERT_EQ((expected), __reply);					\
} while (0)

#define SEND(c, cmd) ASSERT_EQ(0, child_send_cmd((c), (cmd)))

/* Ask a command-loop child to exit, or let a fn child finish. */
#define FINISH(c) do {							\
	SEND((c), 'x');							\
	ASSERT_EQ(0, wait_exit((c)->pid));				\
} while (0)

#define REQUIRE_ROOT() do {						\
	if (geteuid())							\
		SKIP(return, "needs root");				\
} while (0)

static void check_rec(struct __test_metadata *_metadata, const char *who,
		      const struct sigrec *r, int n, int sig0, int sig1,
		      int code, pid_t from)
{
	int sigs[2] = { sig0, sig1 };
	int i;

	if (r->n != n)
		for (i = 0; i < r->n && i < REC_MAX; i++)
			TH_LOG("%s got signal %d, si_code %d, si_pid %d",
			       who, r->sig[i], r->code[i], r->pid[i]);
	ASSERT_EQ(n, r->n) TH_LOG("%s: number of signals", who);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(sigs[i], r->sig[i]) TH_LOG("%s: signal #%d", who, i);
		EXPECT_EQ(code, r->code[i])
			TH_LOG("%s: si_code of signal %d", who, r->sig[i]);
		EXPECT_EQ(from, r->pid[i])
			TH_LOG("%s: si_pid of signal %d", who, r->sig[i]);
	}
}

static void expect_rec(struct __test_metadata *_metadata, const char *who,
		       struct child *c, int n, int sig0, int sig1, int code,
		       pid_t from)
{
	struct sigrec r;

	ASSERT_EQ(0, child_query(c, &r)) TH_LOG("%s does not answer", who);
	check_rec(_metadata, who, &r, n, sig0, sig1, code, from);
}

#define EXPECT_NICE(pid, tid, nice) do {				\
	errno = 0;							\
	EXPECT_EQ((nice), getpriority(PRIO_PROCESS, (tid)))		\
		TH_LOG("getpriority(tid %d): %s", (tid), strerror(errno)); \
	EXPECT_EQ((nice), proc_stat((pid), (tid), STAT_NICE))		\
		TH_LOG("nice of tid %d in /proc", (tid));		\
} while (0)

/* Every thread of @pid has nice value @nice. */
static void expect_nice(struct __test_metadata *_metadata, pid_t pid,
			int nice)
{
	pid_t tids[16];
	int i, n = list_tids(pid, tids, 16);

	ASSERT_LT(0, n);
	for (i = 0; i < n && i < 16; i++)
		EXPECT_NICE(pid, tids[i], nice);
}

/* Every thread of @pid has I/O priority @ioprio (as set, i.e. raw). */
static void expect_ioprio(struct __test_metadata *_metadata, pid_t pid,
			  int ioprio)
{
	pid_t tids[16];
	int i, n = list_tids(pid, tids, 16);

	ASSERT_LT(0, n);
	for (i = 0; i < n && i < 16; i++)
		EXPECT_EQ(ioprio, sys_ioprio_get(IOPRIO_WHO_PROCESS, tids[i]))
			TH_LOG("ioprio of tid %d", tids[i]);
}

/* A child for a few lines of code, without the pipe protocol. */
static pid_t fork_child(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		alarm(CHILD_ALARM);
	}
	return pid;
}

/* ------------------------------------------------------------------ */
/* Terminal helpers                                                    */
/* ------------------------------------------------------------------ */

struct pty {
	int master;
	char name[64];
};

static int pty_open(struct pty *p)
{
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0)
		return -1;
	if (grantpt(p->master) || unlockpt(p->master) ||
	    ptsname_r(p->master, p->name, sizeof(p->name)))
		return -1;
	return 0;
}

#define OPEN_PTY(p) do {						\
	if (pty_open(p))						\
		SKIP(return, "no pty: %s", strerror(errno));		\
} while (0)

/* What a test hands to an intermediate helper. */
struct ctx {
	struct pty *pty, *pty2;
	struct child *d, *e;
};

/* 0 if /dev/tty (the controlling tty) can be opened, else the errno. */
static int devtty_errno(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int ctty_open(const char *name)
{
	int fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);

	CHECK(fd >= 0);
	CHECK(ioctl(fd, TIOCSCTTY, 0) == 0);
	return fd;
}

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

/* The tty_nr of /proc/<pid>/stat for the tty behind @fd. */
static long tty_nr_of(int fd)
{
	struct stat st;
	unsigned int maj, min;

	if (fstat(fd, &st))
		return -1;
	maj = major(st.st_rdev);
	min = minor(st.st_rdev);
	return (min & 0xff) | (maj << 8) | ((min & ~0xffu) << 12);
}

/* ------------------------------------------------------------------ */
/* The fixture: own process group, subreaper, clean teardown           */
/* ------------------------------------------------------------------ */

FIXTURE(session) {
	int unused;
};

FIXTURE_SETUP(session)
{
	ASSERT_EQ(0, prctl(PR_SET_PDEATHSIG, SIGKILL));
	ASSERT_EQ(0, setpgid(0, 0));
	ASSERT_EQ(getpid(), getpgid(0));
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_NE(SIG_ERR, signal(SIGPIPE, SIG_IGN));
	if (geteuid() == 0)
		ASSERT_EQ(0, setpriority(PRIO_PROCESS, 0, 0));
}

FIXTURE_TEARDOWN(session)
{
	reap_all(TIMEOUT_MS);
}

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
	ASSERT_EQ(0, child_init(&c));
	c.fn = setsid_new_session_fn;
	c.arg = sid;
	START(&c);
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

	OPEN_PTY(&pty);
	ASSERT_EQ(0, child_init(&c));
	c.new_session = true;
	c.fn = setsid_ctty_fn;
	c.data = &t;
	START(&c);
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

	ASSERT_EQ(0, child_init(&c1));
	c1.pgid = 0;
	c1.fn = setsid_group_leader_fn;
	START(&c1);
	EXPECT_EQ(0, wait_exit(c1.pid));

	ASSERT_EQ(0, child_init(&c2));
	c2.new_session = true;
	c2.fn = setsid_twice_fn;
	START(&c2);
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

	ASSERT_EQ(0, child_init(&a));
	a.pgid = 0;
	a.fn = setsid_pgid_in_use_fn;
	a.arg = getpid();
	START(&a);
	ASSERT_EQ(0, child_init(&b));
	b.pgid = a.pid;
	START(&b);
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

	ASSERT_EQ(0, child_init(&c1));
	c1.pgid = 0;
	START(&c1);
	ASSERT_EQ(0, child_init(&c2));
	START(&c2);
	ASSERT_EQ(0, child_init(&c4));
	START(&c4);
	ASSERT_EQ(c1.pid, getpgid(c1.pid));
	ASSERT_EQ(getpid(), getpgid(c2.pid));

	/* The parent moves a child into an existing group ... */
	ASSERT_EQ(0, setpgid(c2.pid, c1.pid));
	EXPECT_EQ(c1.pid, getpgid(c2.pid));
	EXPECT_EQ(c1.pid, proc_stat(c2.pid, 0, STAT_PGRP));

	/* ... or a process joins one itself. */
	ASSERT_EQ(0, child_init(&c3));
	c3.fn = setpgid_join_fn;
	c3.arg = c1.pid;
	START(&c3);
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

	ASSERT_EQ(0, child_init(&s));
	s.new_session = true;
	s.fn = setpgid_other_session_fn;
	s.arg = getpid();
	START(&s);
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

	ASSERT_EQ(0, child_init(&s));
	s.new_session = true;
	s.fn = setpgid_session_leader_fn;
	START(&s);
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

	ASSERT_EQ(0, child_init(&a));
	a.fn = grandchild_fn;
	START(&a);
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

static int pause_main(int fd)
{
	if (write(fd, "r", 1) != 1)
		return 1;
	for (;;)
		pause();
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
		execl("/proc/self/exe", "session_test", PAUSE_ARG, buf,
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

	ASSERT_EQ(0, child_init(&c1));
	c1.nthreads = 1;
	START(&c1);
	ASSERT_EQ(0, child_init(&c2));
	c2.pgid = 0;
	START(&c2);
	ASSERT_EQ(0, child_init(&c3));
	c3.new_session = true;
	START(&c3);

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

	ASSERT_EQ(0, child_init(&a1));
	a1.pgid = 0;
	START(&a1);
	ASSERT_EQ(0, child_init(&a2));
	a2.pgid = a1.pid;
	a2.nthreads = 2;
	START(&a2);
	ASSERT_EQ(0, child_init(&a3));
	a3.pgid = a1.pid;
	START(&a3);
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

	ASSERT_EQ(0, child_init(&b1));
	START(&b1);
	ASSERT_EQ(0, child_init(&b2));
	b2.nthreads = 1;
	START(&b2);
	ASSERT_EQ(0, child_init(&o));
	o.pgid = 0;
	START(&o);
	ASSERT_EQ(0, child_init(&g1));
	g1.pgid = 0;
	START(&g1);
	ASSERT_EQ(0, child_init(&g2));
	g2.pgid = g1.pid;
	START(&g2);

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
	ASSERT_EQ(0, child_init(&g3));
	g3.pgid = g1.pid;
	g3.fn = kill_zero_fn;
	START(&g3);
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

	REQUIRE_ROOT();
	ASSERT_EQ(0, child_init(&c));
	c.nthreads = 2;
	START(&c);
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

	REQUIRE_ROOT();
	ASSERT_EQ(0, child_init(&p1));
	p1.pgid = 0;
	p1.nthreads = 1;
	START(&p1);
	ASSERT_EQ(0, child_init(&p2));
	p2.pgid = p1.pid;
	p2.nthreads = 2;
	START(&p2);
	ASSERT_EQ(0, child_init(&o));
	o.pgid = 0;
	o.nthreads = 1;
	START(&o);

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

TEST_F(session, setpriority_user)
{
	struct child u1, u2, v;
	pid_t t, tv;

	REQUIRE_ROOT();
	ASSERT_EQ(0, child_init(&u1));
	u1.uid = UID_A;
	u1.nthreads = 2;
	START(&u1);
	ASSERT_EQ(0, child_init(&u2));
	u2.uid = UID_A;
	u2.pgid = 0;
	u2.nthreads = 1;
	START(&u2);
	ASSERT_EQ(0, child_init(&v));
	v.uid = UID_B;
	v.nthreads = 1;
	START(&v);

	/* A uid without processes. */
	ASSERT_ERRNO(ESRCH, setpriority(PRIO_USER, UID_NONE, 1));
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_USER, UID_NONE));

	/* Exactly the threads of that user. */
	ASSERT_EQ(0, setpriority(PRIO_USER, UID_A, 6));
	expect_nice(_metadata, u1.pid, 6);
	expect_nice(_metadata, u2.pid, 6);
	expect_nice(_metadata, v.pid, 0);
	EXPECT_NICE(getpid(), getpid(), 0);
	errno = 0;
	EXPECT_EQ(6, getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(0, errno);
	EXPECT_EQ(20 - 6, sys_getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(0, getpriority(PRIO_USER, UID_B));
	EXPECT_EQ(20, sys_getpriority(PRIO_USER, UID_B));

	/* The highest priority among the user's threads is reported. */
	t = other_tid(u2.pid);
	ASSERT_LT(0, t);
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, t, 2));
	EXPECT_EQ(2, getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(20 - 2, sys_getpriority(PRIO_USER, UID_A));
	tv = other_tid(v.pid);
	ASSERT_LT(0, tv);
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, tv, -3));
	EXPECT_EQ(-3, getpriority(PRIO_USER, UID_B));
	EXPECT_EQ(20 + 3, sys_getpriority(PRIO_USER, UID_B));
	EXPECT_EQ(2, getpriority(PRIO_USER, UID_A));

	ASSERT_EQ(0, setpriority(PRIO_USER, UID_B, 10));
	expect_nice(_metadata, v.pid, 10);
	expect_nice(_metadata, u1.pid, 6);
	EXPECT_NICE(u2.pid, u2.pid, 6);
	EXPECT_NICE(u2.pid, t, 2);
	EXPECT_NICE(getpid(), getpid(), 0);

	FINISH(&u1);
	FINISH(&u2);
	FINISH(&v);
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

	REQUIRE_ROOT();
	ASSERT_EQ(0, child_init(&c));
	c.uid = UID_A;
	c.pgid = 0;
	c.nthreads = 1;
	c.fn = unpriv_nice_fn;
	START(&c);
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

	REQUIRE_ROOT();
	ASSERT_EQ(0, child_init(&v));
	v.uid = UID_B;
	v.pgid = 0;
	v.nthreads = 1;
	START(&v);
	ASSERT_EQ(0, child_init(&w));
	w.uid = UID_A;
	w.pgid = 0;
	w.fn = unpriv_other_user_fn;
	w.arg = v.pid;
	START(&w);
	EXPECT_EQ(0, wait_exit(w.pid));
	expect_nice(_metadata, v.pid, 0);
	EXPECT_NICE(getpid(), getpid(), 0);
	FINISH(&v);
}

/* ------------------------------------------------------------------ */
/* ioprio_set() / ioprio_get()                                         */
/* ------------------------------------------------------------------ */

#define REQUIRE_IOPRIO() do {						\
	if (sys_ioprio_get(IOPRIO_WHO_PROCESS, 0) < 0 && errno == ENOSYS) \
		SKIP(return, "ioprio_get() is ENOSYS (CONFIG_BLOCK=n?)"); \
} while (0)

/*
 * The I/O priority a task reports to IOPRIO_WHO_PGRP/USER when it never
 * set one: derived from nice 0 under SCHED_OTHER, i.e. best effort,
 * level (0 + 20) / 5 (__get_task_ioprio()).
 */
#define IOPRIO_NICE0 IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)

TEST_F(session, ioprio_pgrp)
{
	int be1 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 1);
	int be3 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 3);
	struct child p1, p2, o;
	int o_prio, t_prio;
	pid_t t, u;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	ASSERT_EQ(0, child_init(&p1));
	p1.pgid = 0;
	p1.nthreads = 1;
	START(&p1);
	ASSERT_EQ(0, child_init(&p2));
	p2.pgid = p1.pid;
	p2.nthreads = 1;
	START(&p2);
	ASSERT_EQ(0, child_init(&o));
	o.pgid = 0;
	o.nthreads = 1;
	START(&o);
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

static int unpriv_ioprio_fn(struct child *c)
{
	int be1 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 1);
	int be7 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7);
	int rt0 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 0);
	pid_t v = c->arg;

	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_PROCESS, v, be1), EPERM);
	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_PGRP, v, be1), EPERM);
	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_USER, UID_B, be1), EPERM);
	/* The real-time class needs CAP_SYS_NICE or CAP_SYS_ADMIN. */
	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_PROCESS, 0, rt0), EPERM);
	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_USER, UID_NONE, be1), ESRCH);
	CHECK(sys_ioprio_set(IOPRIO_WHO_PROCESS, 0, be7) == 0);
	CHECK(sys_ioprio_get(IOPRIO_WHO_PROCESS, 0) == be7);
	return 0;
}

TEST_F(session, ioprio_user)
{
	int be2 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 2);
	int be5 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 5);
	struct child u1, u2, v, w;
	int v_prio, t_prio;
	pid_t t;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	ASSERT_EQ(0, child_init(&u1));
	u1.uid = UID_A;
	u1.nthreads = 2;
	START(&u1);
	ASSERT_EQ(0, child_init(&u2));
	u2.uid = UID_A;
	u2.pgid = 0;
	START(&u2);
	ASSERT_EQ(0, child_init(&v));
	v.uid = UID_B;
	v.pgid = 0;
	v.nthreads = 1;
	START(&v);
	v_prio = sys_ioprio_get(IOPRIO_WHO_PROCESS, v.pid);
	ASSERT_LE(0, v_prio);
	t_prio = sys_ioprio_get(IOPRIO_WHO_PROCESS, 0);
	ASSERT_LE(0, t_prio);

	ASSERT_ERRNO(ESRCH, sys_ioprio_get(IOPRIO_WHO_USER, UID_NONE));
	ASSERT_ERRNO(ESRCH, sys_ioprio_set(IOPRIO_WHO_USER, UID_NONE, be5));

	ASSERT_EQ(0, sys_ioprio_set(IOPRIO_WHO_USER, UID_A, be5));
	expect_ioprio(_metadata, u1.pid, be5);
	expect_ioprio(_metadata, u2.pid, be5);
	expect_ioprio(_metadata, v.pid, v_prio);
	EXPECT_EQ(t_prio, sys_ioprio_get(IOPRIO_WHO_PROCESS, 0));
	EXPECT_EQ(be5, sys_ioprio_get(IOPRIO_WHO_USER, UID_A));
	EXPECT_EQ(IOPRIO_NICE0, sys_ioprio_get(IOPRIO_WHO_USER, UID_B));

	t = other_tid(u1.pid);
	ASSERT_LT(0, t);
	ASSERT_EQ(0, sys_ioprio_set(IOPRIO_WHO_PROCESS, t, be2));
	EXPECT_EQ(be2, sys_ioprio_get(IOPRIO_WHO_USER, UID_A));

	/* Unprivileged callers reach only their own uid. */
	ASSERT_EQ(0, child_init(&w));
	w.uid = UID_A;
	w.pgid = 0;
	w.fn = unpriv_ioprio_fn;
	w.arg = v.pid;
	START(&w);
	EXPECT_EQ(0, wait_exit(w.pid));
	expect_ioprio(_metadata, v.pid, v_prio);
	EXPECT_EQ(be2, sys_ioprio_get(IOPRIO_WHO_USER, UID_A));

	FINISH(&u1);
	FINISH(&u2);
	FINISH(&v);
}

/* ------------------------------------------------------------------ */
/* PRIO_USER and IOPRIO_WHO_USER: exactly the threads of a real uid    */
/* ------------------------------------------------------------------ */

/*
 * setpriority()/getpriority(PRIO_USER) and ioprio_set()/ioprio_get()
 * (IOPRIO_WHO_USER) act on every thread whose REAL uid (task_uid()) is
 * the given one; 6.12 finds them by walking all threads of the system
 * (for_each_process_thread()).  The tests below keep a model of every
 * thread of UID_A and UID_B (nothing else in the guest runs with them):
 * each thread's nice value and I/O priority are checked one by one, and
 * so are the per-user answers, which are the best value over exactly the
 * threads of that uid.  model_probe() gives each thread in turn the best
 * values of all, so a thread counted for the wrong uid, or missing from
 * its own, changes an answer.
 */

#define IOPRIO_BE(level)	IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, (level))
#define PROBE_NICE	-15		/* below every nice value in a model */
#define PROBE_IOPRIO	IOPRIO_BE(0)	/* better than every model ioprio */
#define MODEL_MAX	256

struct model {
	int n;
	pid_t pid[MODEL_MAX];		/* thread group */
	pid_t tid[MODEL_MAX];
	uid_t uid[MODEL_MAX];		/* real uid */
	int nice[MODEL_MAX];
	int ioprio[MODEL_MAX];		/* always set explicitly */
};

static const uid_t model_uids[] = { UID_A, UID_B };

/* Record a thread whose values are already known. */
static void model_track(struct __test_metadata *_metadata, struct model *m,
			pid_t pid, pid_t tid, uid_t uid, int nice, int ioprio)
{
	int i = m->n;

	ASSERT_GT(MODEL_MAX, i);
	m->pid[i] = pid;
	m->tid[i] = tid;
	m->uid[i] = uid;
	m->nice[i] = nice;
	m->ioprio[i] = ioprio;
	m->n++;
}

/* Set a thread's values (PRIO_PROCESS, IOPRIO_WHO_PROCESS), record it. */
static void model_add(struct __test_metadata *_metadata, struct model *m,
		      pid_t pid, pid_t tid, uid_t uid, int nice, int ioprio)
{
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, tid, nice))
		TH_LOG("tid %d: %s", tid, strerror(errno));
	ASSERT_EQ(0, sys_ioprio_set(IOPRIO_WHO_PROCESS, tid, ioprio))
		TH_LOG("tid %d: %s", tid, strerror(errno));
	model_track(_metadata, m, pid, tid, uid, nice, ioprio);
}

/* model_add() every thread of @pid; returns how many. */
static int model_add_all(struct __test_metadata *_metadata, struct model *m,
			 pid_t pid, uid_t uid, int nice, int ioprio)
{
	pid_t tids[MODEL_MAX];
	int i, n = list_tids(pid, tids, MODEL_MAX);

	ASSERT_LT(0, n);
	ASSERT_GE(MODEL_MAX, n);
	for (i = 0; i < n; i++)
		model_add(_metadata, m, pid, tids[i], uid, nice, ioprio);
	return n;
}

static int model_find(const struct model *m, pid_t tid)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (m->tid[i] == tid)
			return i;
	return -1;
}

static void model_del_at(struct model *m, int i)
{
	m->n--;
	m->pid[i] = m->pid[m->n];
	m->tid[i] = m->tid[m->n];
	m->uid[i] = m->uid[m->n];
	m->nice[i] = m->nice[m->n];
	m->ioprio[i] = m->ioprio[m->n];
}

static void model_del_tid(struct __test_metadata *_metadata,
			  struct model *m, pid_t tid)
{
	int i = model_find(m, tid);

	ASSERT_LE(0, i);
	model_del_at(m, i);
}

static void model_del_pid(struct model *m, pid_t pid)
{
	int i;

	for (i = m->n - 1; i >= 0; i--)
		if (m->pid[i] == pid)
			model_del_at(m, i);
}

/*
 * Whether getpriority(PRIO_USER, @u) and ioprio_get(IOPRIO_WHO_USER, @u)
 * give what the model predicts (ESRCH if it has no thread of @u); if
 * not, what they gave, in @msg.
 */
static bool user_answers_ok(const struct model *m, uid_t u, char *msg,
			    size_t len)
{
	int nice = INT_MAX, io = INT_MAX, rio, e1, e2, i;
	long want, r;
	bool ok;

	for (i = 0; i < m->n; i++) {
		if (m->uid[i] != u)
			continue;
		if (m->nice[i] < nice)
			nice = m->nice[i];
		if (m->ioprio[i] < io)
			io = m->ioprio[i];
	}
	errno = 0;
	r = sys_getpriority(PRIO_USER, u);	/* 20 - nice */
	e1 = errno;
	errno = 0;
	rio = sys_ioprio_get(IOPRIO_WHO_USER, u);
	e2 = errno;
	want = nice == INT_MAX ? -1 : 20 - nice;
	if (io == INT_MAX)
		io = -1;
	ok = r == want && (want != -1 || e1 == ESRCH) &&
	     rio == io && (io != -1 || e2 == ESRCH);
	if (!ok)
		snprintf(msg, len, "uid %u: raw getpriority %ld (errno %d), "
			 "expected %ld; ioprio_get %#x (errno %d), expected %#x",
			 u, r, e1, want, rio, e2, io);
	return ok;
}

/* Every thread individually, then the per-user answers. */
static void model_check(struct __test_metadata *_metadata,
			const struct model *m)
{
	char msg[256];
	int i, bad = 0;
	size_t k;

	for (i = 0; i < m->n; i++) {
		long nice, pnice;
		int io;

		errno = 0;
		nice = getpriority(PRIO_PROCESS, m->tid[i]);
		if (errno)
			nice = LONG_MIN;
		pnice = proc_stat(m->pid[i], m->tid[i], STAT_NICE);
		io = sys_ioprio_get(IOPRIO_WHO_PROCESS, m->tid[i]);
		if (nice == m->nice[i] && pnice == m->nice[i] &&
		    io == m->ioprio[i])
			continue;
		if (bad++ < 5)
			TH_LOG("tid %d of %d (uid %u): nice %ld (/proc: %ld), "
			       "ioprio %#x; expected nice %d, ioprio %#x",
			       m->tid[i], m->pid[i], m->uid[i], nice, pnice,
			       io, m->nice[i], m->ioprio[i]);
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d threads differ", bad, m->n);
	for (k = 0; k < ARRAY_SIZE(model_uids); k++)
		EXPECT_TRUE(user_answers_ok(m, model_uids[k], msg,
					    sizeof(msg))) TH_LOG("%s", msg);
}

/*
 * setpriority(PRIO_USER, @u, @value) or, with @io, ioprio_set(
 * IOPRIO_WHO_USER, @u, @value) reaches exactly @u's threads: ESRCH when
 * @u has none.
 */
static void model_set_user_value(struct __test_metadata *_metadata,
				 struct model *m, uid_t u, bool io, int value)
{
	bool any = false;
	int i;

	for (i = 0; i < m->n; i++) {
		if (m->uid[i] != u)
			continue;
		if (io)
			m->ioprio[i] = value;
		else
			m->nice[i] = value;
		any = true;
	}
	if (any) {
		ASSERT_EQ(0, io ? sys_ioprio_set(IOPRIO_WHO_USER, u, value) :
				  setpriority(PRIO_USER, u, value))
			TH_LOG("uid %u: %s", u, strerror(errno));
	} else {
		ASSERT_ERRNO(ESRCH, io ? sys_ioprio_set(IOPRIO_WHO_USER, u, value) :
					 setpriority(PRIO_USER, u, value));
	}
	model_check(_metadata, m);
}

static void model_set_user(struct __test_metadata *_metadata,
			   struct model *m, uid_t u, int nice)
{
	model_set_user_value(_metadata, m, u, false, nice);
}

static void model_set_user_ioprio(struct __test_metadata *_metadata,
				  struct model *m, uid_t u, int ioprio)
{
	model_set_user_value(_metadata, m, u, true, ioprio);
}

/* One thread's values, by PRIO_PROCESS and IOPRIO_WHO_PROCESS. */
static void model_set_thread(struct __test_metadata *_metadata,
			     struct model *m, pid_t tid, int nice, int ioprio)
{
	int i = model_find(m, tid);

	ASSERT_LE(0, i);
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, tid, nice));
	ASSERT_EQ(0, sys_ioprio_set(IOPRIO_WHO_PROCESS, tid, ioprio));
	m->nice[i] = nice;
	m->ioprio[i] = ioprio;
}

/* A thread's real uid changed. */
static void model_set_uid(struct __test_metadata *_metadata,
			  struct model *m, pid_t tid, uid_t uid)
{
	int i = model_find(m, tid);

	ASSERT_LE(0, i);
	m->uid[i] = uid;
}

/*
 * Give each thread in turn the best nice value and I/O priority of all:
 * the per-user answers must then show it for its own uid and for no
 * other one.
 */
static void model_probe(struct __test_metadata *_metadata, struct model *m)
{
	char msg[256];
	int i, bad = 0;
	size_t k;

	for (i = 0; i < m->n; i++) {
		int nice = m->nice[i], io = m->ioprio[i];

		model_set_thread(_metadata, m, m->tid[i], PROBE_NICE,
				 PROBE_IOPRIO);
		for (k = 0; k < ARRAY_SIZE(model_uids); k++)
			if (!user_answers_ok(m, model_uids[k], msg,
					     sizeof(msg)) && bad++ < 5)
				TH_LOG("tid %d (uid %u) at the top: %s",
				       m->tid[i], m->uid[i], msg);
		model_set_thread(_metadata, m, m->tid[i], nice, io);
	}
	EXPECT_EQ(0, bad) TH_LOG("%d wrong answers", bad);
	model_check(_metadata, m);
}

/* Bounded wait until no task has the id @tid. */
static int wait_tid_gone(pid_t tid)
{
	long long deadline = now_ms() + TIMEOUT_MS;

	do {
		errno = 0;
		if (getpriority(PRIO_PROCESS, tid) == -1 && errno == ESRCH)
			return 0;
		usleep(2000);
	} while (now_ms() < deadline);
	return -1;
}

/* Bounded wait until the child @pid is a zombie, without reaping it. */
static int wait_zombie(pid_t pid)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	siginfo_t si;

	do {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT))
			return -1;
		if (si.si_pid == pid)
			return 0;
		usleep(5000);
	} while (now_ms() < deadline);
	return -1;
}

/*
 * A "crew": a helper process whose threads change their own credentials
 * on command.  It creates its threads as root, then glibc's setresuid()
 * makes every thread (UID_A, UID_A, 0): uid A with a saved uid of 0, so
 * that each thread can later take back euid 0 and become someone else by
 * itself.  Thread changes use the raw syscall, which (unlike glibc's
 * wrapper) changes only the calling thread.
 *
 * Protocol: after the usual "ready", the crew sends its n thread ids
 * (the main thread first); then each struct crew_cmd gets an int reply.
 */
#define CREW_MAX	8

struct crew_cmd {
	int idx;		/* thread, 0 for the main thread */
	int op;
	int arg;
};

static struct {
	int n;
	pid_t tid[CREW_MAX];
	pthread_t th[CREW_MAX];
	int cmd[CREW_MAX][2];	/* main thread -> thread */
	int rep[2];		/* threads -> main thread */
} crew;

static long raw_setresuid(uid_t r, uid_t e, uid_t s)
{
	return syscall(SYS_setresuid, r, e, s);
}

/* Carry out @op in the calling thread only: 0 or an errno. */
static int crew_op_here(int op, int arg)
{
	long ret;

	switch (op) {
	case 'r':			/* this thread's real uid */
		return syscall(SYS_getuid);
	case 'U':			/* setresuid(arg, arg, arg) */
	case 'u':			/* setresuid(arg, arg, 0) */
	case 'e':			/* setresuid(-1, arg, -1) */
		/* Take back euid 0, and with it the capabilities. */
		if (raw_setresuid(-1, 0, -1))
			return errno;
		if (op == 'U')
			ret = raw_setresuid(arg, arg, arg);
		else if (op == 'u')
			ret = raw_setresuid(arg, arg, 0);
		else
			ret = raw_setresuid(-1, arg, -1);
		if (ret)
			return errno;
		/* A credential change clears this thread's pdeathsig. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		return 0;
	case 'x':			/* the thread exits */
		return 0;
	}
	return EINVAL;
}

static void *crew_thread(void *arg)
{
	int i = (long)arg, r = gettid();
	struct crew_cmd cmd;

	if (write_full(crew.rep[1], &r, sizeof(r)))
		_exit(5);
	for (;;) {
		if (read_full(crew.cmd[i][0], &cmd, sizeof(cmd),
			      CHILD_ALARM * 1000))
			_exit(4);
		r = crew_op_here(cmd.op, cmd.arg);
		if (write_full(crew.rep[1], &r, sizeof(r)))
			_exit(5);
		if (cmd.op == 'x')
			return NULL;
	}
}

static int crew_fn(struct child *c)
{
	struct rlimit rl = { 0, 0 };
	struct crew_cmd cmd;
	sigset_t all, old;
	int i, r;

	crew.n = c->arg;
	CHECK(crew.n >= 1 && crew.n <= CREW_MAX);
	/* Unprivileged callers may not lower our threads' nice values. */
	CHECK(setrlimit(RLIMIT_NICE, &rl) == 0);
	CHECK(pipe2(crew.rep, O_CLOEXEC) == 0);
	crew.tid[0] = getpid();
	sigfillset(&all);
	CHECK(sigprocmask(SIG_SETMASK, &all, &old) == 0);
	for (i = 1; i < crew.n; i++) {
		CHECK(pipe2(crew.cmd[i], O_CLOEXEC) == 0);
		CHECK(pthread_create(&crew.th[i], NULL, crew_thread,
				     (void *)(long)i) == 0);
		CHECK(read_full(crew.rep[0], &crew.tid[i], sizeof(pid_t),
				TIMEOUT_MS) == 0);
	}
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	/* glibc applies these to every thread. */
	CHECK(setgroups(0, NULL) == 0);
	CHECK(setresgid(UID_A, UID_A, UID_A) == 0);
	CHECK(setresuid(UID_A, UID_A, 0) == 0);
	CHECK(prctl(PR_SET_PDEATHSIG, SIGKILL) == 0);
	CHECK(getppid() == c->parent);
	child_put(c, crew.tid, crew.n * sizeof(pid_t));

	for (;;) {
		if (read_full(c->cmd[0], &cmd, sizeof(cmd),
			      CHILD_ALARM * 1000))
			_exit(4);
		if (cmd.idx == 0) {
			if (cmd.op == 'x')
				_exit(0);
			r = crew_op_here(cmd.op, cmd.arg);
		} else {
			CHECK(cmd.idx < crew.n && crew.tid[cmd.idx] > 0);
			CHECK(write_full(crew.cmd[cmd.idx][1], &cmd,
					 sizeof(cmd)) == 0);
			CHECK(read_full(crew.rep[0], &r, sizeof(r),
					TIMEOUT_MS) == 0);
			if (cmd.op == 'x') {
				CHECK(pthread_join(crew.th[cmd.idx], NULL) == 0);
				crew.tid[cmd.idx] = 0;
			}
		}
		child_put_int(c, r);
	}
}

static int crew_start(struct child *c, pid_t *tids, int n)
{
	c->fn = crew_fn;
	c->arg = n;
	if (child_start(c) < 0 || child_ready(c))
		return -1;
	return child_recv(c, tids, n * sizeof(pid_t));
}

/* The reply to a command, INT_MIN if there is none. */
static int crew_cmd(struct child *c, int idx, int op, int arg)
{
	struct crew_cmd cmd = { .idx = idx, .op = op, .arg = arg };
	int r;

	if (write_full(c->cmd[1], &cmd, sizeof(cmd)) ||
	    child_recv(c, &r, sizeof(r)))
		return INT_MIN;
	return r;
}

#define CREW_START(c, tids, n) do {					\
	ASSERT_EQ(0, child_init(c));					\
	ASSERT_EQ(0, crew_start((c), (tids), (n)));			\
} while (0)

#define CREW(c, idx, op, arg)						\
	ASSERT_EQ(0, crew_cmd((c), (idx), (op), (arg)))			\
		TH_LOG("crew thread %d, op '%c'", (idx), (op))

#define CREW_FINISH(c) do {						\
	struct crew_cmd __x = { .idx = 0, .op = 'x' };			\
	ASSERT_EQ(0, write_full((c)->cmd[1], &__x, sizeof(__x)));	\
	ASSERT_EQ(0, wait_exit((c)->pid));				\
} while (0)

/* Non-leader threads of UID_A's processes, one by one. */
TEST_F(session, prio_user_threads)
{
	struct model m = { 0 };
	struct child u1, u2, v;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	ASSERT_EQ(0, child_init(&u1));
	u1.uid = UID_A;
	u1.nthreads = 3;
	START(&u1);
	ASSERT_EQ(0, child_init(&u2));
	u2.uid = UID_A;
	u2.pgid = 0;
	u2.nthreads = 2;
	START(&u2);
	ASSERT_EQ(0, child_init(&v));
	v.uid = UID_B;
	v.nthreads = 2;
	START(&v);
	ASSERT_EQ(4, model_add_all(_metadata, &m, u1.pid, UID_A, 4,
				   IOPRIO_BE(4)));
	ASSERT_EQ(3, model_add_all(_metadata, &m, u2.pid, UID_A, 3,
				   IOPRIO_BE(5)));
	ASSERT_EQ(3, model_add_all(_metadata, &m, v.pid, UID_B, 2,
				   IOPRIO_BE(3)));
	model_check(_metadata, &m);

	model_set_user(_metadata, &m, UID_A, 6);
	model_set_user(_metadata, &m, UID_B, 1);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(5));
	model_set_user_ioprio(_metadata, &m, UID_B, IOPRIO_BE(2));
	model_probe(_metadata, &m);

	/* uid -1 is invalid: no user_struct, nothing walked, ESRCH. */
	ASSERT_ERRNO(ESRCH, setpriority(PRIO_USER, -1, 1));
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_USER, -1));
	ASSERT_ERRNO(ESRCH, sys_ioprio_set(IOPRIO_WHO_USER, -1,
					   IOPRIO_BE(1)));
	ASSERT_ERRNO(ESRCH, sys_ioprio_get(IOPRIO_WHO_USER, -1));
	model_check(_metadata, &m);

	FINISH(&u1);
	FINISH(&u2);
	FINISH(&v);
}

/*
 * A thread that changes its own real uid moves from one user's walk to
 * the other's, while its siblings stay where they were.
 */
TEST_F(session, prio_user_thread_setresuid)
{
	struct model m = { 0 };
	struct child p, v;
	pid_t t[4];
	int i;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	CREW_START(&p, t, 4);
	ASSERT_EQ(0, child_init(&v));
	v.uid = UID_B;
	v.nthreads = 1;
	START(&v);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(UID_A, crew_cmd(&p, i, 'r', 0));
		model_add(_metadata, &m, p.pid, t[i], UID_A, 3 + i,
			  IOPRIO_BE(3 + i));
	}
	model_add_all(_metadata, &m, v.pid, UID_B, 8, IOPRIO_BE(6));
	model_check(_metadata, &m);
	model_probe(_metadata, &m);

	/* t[2] alone becomes uid B. */
	CREW(&p, 2, 'U', UID_B);
	model_set_uid(_metadata, &m, t[2], UID_B);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(i == 2 ? UID_B : UID_A, crew_cmd(&p, i, 'r', 0))
			TH_LOG("real uid of crew thread %d", i);
	model_check(_metadata, &m);
	model_set_user(_metadata, &m, UID_A, 5);
	model_set_user(_metadata, &m, UID_B, 9);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(5));
	model_set_user_ioprio(_metadata, &m, UID_B, IOPRIO_BE(2));
	/*
	 * Spelled out: t[2] holds the best values of all.  uid A must
	 * report its siblings' 5 / BE5, uid B t[2]'s -3 / BE1 ...
	 */
	model_set_thread(_metadata, &m, t[2], -3, IOPRIO_BE(1));
	model_check(_metadata, &m);
	errno = 0;
	EXPECT_EQ(5, getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(-3, getpriority(PRIO_USER, UID_B));
	EXPECT_EQ(0, errno);
	EXPECT_EQ(IOPRIO_BE(5), sys_ioprio_get(IOPRIO_WHO_USER, UID_A));
	EXPECT_EQ(IOPRIO_BE(1), sys_ioprio_get(IOPRIO_WHO_USER, UID_B));
	/* ... and with a sibling on top, uid B must not see it. */
	model_set_thread(_metadata, &m, t[2], 8, IOPRIO_BE(4));
	model_set_thread(_metadata, &m, t[1], -2, IOPRIO_BE(1));
	model_check(_metadata, &m);
	EXPECT_EQ(-2, getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(8, getpriority(PRIO_USER, UID_B));
	EXPECT_EQ(IOPRIO_BE(1), sys_ioprio_get(IOPRIO_WHO_USER, UID_A));
	EXPECT_EQ(IOPRIO_BE(2), sys_ioprio_get(IOPRIO_WHO_USER, UID_B));
	model_probe(_metadata, &m);

	/* Only the real uid counts: t[1] with euid B stays with uid A. */
	CREW(&p, 1, 'e', UID_B);
	EXPECT_EQ(UID_A, crew_cmd(&p, 1, 'r', 0));
	model_set_user(_metadata, &m, UID_A, 7);
	model_set_user(_metadata, &m, UID_B, 10);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(6));
	model_probe(_metadata, &m);

	/* t[3] goes A -> B -> A: it ends up with uid A only. */
	CREW(&p, 3, 'u', UID_B);
	EXPECT_EQ(UID_B, crew_cmd(&p, 3, 'r', 0));
	model_set_uid(_metadata, &m, t[3], UID_B);
	model_check(_metadata, &m);
	model_set_user(_metadata, &m, UID_B, 11);
	model_set_user(_metadata, &m, UID_A, 12);
	model_set_user_ioprio(_metadata, &m, UID_B, IOPRIO_BE(7));
	model_probe(_metadata, &m);
	CREW(&p, 3, 'u', UID_A);
	EXPECT_EQ(UID_A, crew_cmd(&p, 3, 'r', 0));
	model_set_uid(_metadata, &m, t[3], UID_A);
	model_check(_metadata, &m);
	model_set_user(_metadata, &m, UID_B, 13);
	model_set_user(_metadata, &m, UID_A, 14);
	model_set_user_ioprio(_metadata, &m, UID_B, IOPRIO_BE(3));
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(4));
	model_probe(_metadata, &m);

	CREW_FINISH(&p);
	FINISH(&v);
}

/* Wait for a command, become uid c->arg (every thread), reply. */
static int switch_uid_fn(struct child *c)
{
	child_get_cmd(c);
	/* A no-op for root; else take back euid 0 from the saved uid. */
	CHECK(setresuid(-1, 0, -1) == 0);
	CHECK(setresuid(c->arg, c->arg, c->arg) == 0);
	CHECK(prctl(PR_SET_PDEATHSIG, SIGKILL) == 0);
	CHECK(getppid() == c->parent);
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

/* Become (UID_A, UID_A, 0), then fork t->d: born with uid A. */
static int fork_as_a_fn(struct child *c)
{
	struct ctx *t = c->data;

	CHECK(setresuid(UID_A, UID_A, 0) == 0);
	CHECK(prctl(PR_SET_PDEATHSIG, SIGKILL) == 0);
	CHECK(getppid() == c->parent);
	CHECK(child_start(t->d) > 0);
	child_put_int(c, 0);
	child_get_cmd(c);
	return 0;
}

/*
 * Processes change users after fork: one forked by root (threads and
 * all) that becomes uid A, one forked by a uid-A parent (so born with
 * uid A, threads too) that becomes uid B.
 */
TEST_F(session, prio_user_uid_change_after_fork)
{
	struct model m = { 0 };
	struct child r, p, q;
	struct ctx t = { .d = &q };
	pid_t tq, tids[4];
	int i;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	ASSERT_EQ(0, child_init(&r));
	r.nthreads = 2;
	r.fn = switch_uid_fn;
	r.arg = UID_A;
	START(&r);
	/* Still root: uid A has no thread at all. */
	model_check(_metadata, &m);
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_USER, UID_A));

	SEND(&r, 'g');
	ASSERT_REPLY(&r, 0);
	ASSERT_EQ(3, model_add_all(_metadata, &m, r.pid, UID_A, 2,
				   IOPRIO_BE(2)));
	model_set_user(_metadata, &m, UID_A, 3);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(4));
	model_probe(_metadata, &m);

	ASSERT_EQ(0, child_init(&q));
	q.nthreads = 2;
	q.fn = switch_uid_fn;
	q.arg = UID_B;
	ASSERT_EQ(0, child_init(&p));
	p.fn = fork_as_a_fn;
	p.data = &t;
	START(&p);
	child_forget_ends(&q);
	ASSERT_EQ(0, child_ready(&q));
	ASSERT_REPLY(&p, 0);
	ASSERT_EQ(1, model_add_all(_metadata, &m, p.pid, UID_A, 4,
				   IOPRIO_BE(4)));
	ASSERT_EQ(3, model_add_all(_metadata, &m, q.pid, UID_A, 5,
				   IOPRIO_BE(5)));
	model_set_user(_metadata, &m, UID_A, 6);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(6));
	model_probe(_metadata, &m);

	/* q (all three threads) leaves uid A for B. */
	SEND(&q, 'g');
	ASSERT_REPLY(&q, 0);
	ASSERT_EQ(3, list_tids(q.pid, tids, 4));
	for (i = 0; i < 3; i++)
		model_set_uid(_metadata, &m, tids[i], UID_B);
	model_check(_metadata, &m);
	model_set_user(_metadata, &m, UID_A, 2);
	model_set_user(_metadata, &m, UID_B, 8);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(1));
	model_set_user_ioprio(_metadata, &m, UID_B, IOPRIO_BE(7));
	/* q's best thread is better than all of uid A's. */
	tq = other_tid(q.pid);
	ASSERT_LT(0, tq);
	model_set_thread(_metadata, &m, tq, -4, IOPRIO_BE(1));
	model_check(_metadata, &m);
	EXPECT_EQ(2, getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(-4, getpriority(PRIO_USER, UID_B));
	model_probe(_metadata, &m);

	FINISH(&r);
	/* q dies with p (pdeathsig); the teardown reaps it. */
	FINISH(&p);
}

/*
 * Threads that exited and were released, and processes that exited and
 * were reaped, are walked no more, even when they held the best values.
 */
TEST_F(session, prio_user_exit_reaped)
{
	struct model m = { 0 };
	struct child p, v;
	pid_t t[4];
	int i;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	CREW_START(&p, t, 4);
	ASSERT_EQ(0, child_init(&v));
	v.uid = UID_B;
	v.nthreads = 1;
	START(&v);
	for (i = 0; i < 4; i++)
		model_add(_metadata, &m, p.pid, t[i], UID_A, 4, IOPRIO_BE(4));
	model_add_all(_metadata, &m, v.pid, UID_B, 6, IOPRIO_BE(6));

	/* t[3] is on top of uid A, then exits. */
	model_set_thread(_metadata, &m, t[3], PROBE_NICE, PROBE_IOPRIO);
	model_check(_metadata, &m);
	CREW(&p, 3, 'x', 0);
	/*
	 * pthread_join() returns once the kernel cleared the tid in
	 * exit_mm(), before release_task() unhashed the thread: wait.
	 */
	ASSERT_EQ(0, wait_tid_gone(t[3]));
	model_del_tid(_metadata, &m, t[3]);
	model_check(_metadata, &m);
	errno = 0;
	EXPECT_EQ(4, getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(0, errno);
	EXPECT_EQ(IOPRIO_BE(4), sys_ioprio_get(IOPRIO_WHO_USER, UID_A));
	model_set_user(_metadata, &m, UID_A, 5);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(5));

	/* t[2] becomes uid B, goes on top of it, then exits. */
	CREW(&p, 2, 'U', UID_B);
	model_set_uid(_metadata, &m, t[2], UID_B);
	model_set_thread(_metadata, &m, t[2], PROBE_NICE, PROBE_IOPRIO);
	model_check(_metadata, &m);
	CREW(&p, 2, 'x', 0);
	ASSERT_EQ(0, wait_tid_gone(t[2]));
	model_del_tid(_metadata, &m, t[2]);
	model_check(_metadata, &m);
	EXPECT_EQ(6, getpriority(PRIO_USER, UID_B));
	model_set_user(_metadata, &m, UID_B, 7);
	model_set_user(_metadata, &m, UID_A, 8);
	model_probe(_metadata, &m);

	/* The crew exits and is reaped: uid A has no thread left. */
	CREW_FINISH(&p);
	model_del_pid(&m, p.pid);
	model_check(_metadata, &m);
	ASSERT_ERRNO(ESRCH, setpriority(PRIO_USER, UID_A, 1));
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_USER, UID_A));
	ASSERT_ERRNO(ESRCH, sys_ioprio_set(IOPRIO_WHO_USER, UID_A,
					   IOPRIO_BE(1)));
	ASSERT_ERRNO(ESRCH, sys_ioprio_get(IOPRIO_WHO_USER, UID_A));
	model_set_user(_metadata, &m, UID_B, 9);

	FINISH(&v);
	model_del_pid(&m, v.pid);
	model_check(_metadata, &m);
	ASSERT_ERRNO(ESRCH, setpriority(PRIO_USER, UID_B, 1));
	ASSERT_ERRNO(ESRCH, sys_ioprio_get(IOPRIO_WHO_USER, UID_B));
}

/*
 * 6.12 walks zombies too: a process that exited but was not reaped is
 * still on the task list, with its pid and credentials, until
 * release_task().  Its nice value can be set and is reported; its
 * io_context went away in do_exit(), so set_task_ioprio() succeeds
 * without effect (PF_EXITING) and ioprio_get() derives the I/O priority
 * from the nice value.  Once reaped, it is gone.
 */
TEST_F(session, prio_user_zombie)
{
	struct child z;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	ASSERT_EQ(0, child_init(&z));
	z.uid = UID_A;
	z.nthreads = 2;
	START(&z);
	ASSERT_EQ(0, setpriority(PRIO_USER, UID_A, 3));
	ASSERT_EQ(0, sys_ioprio_set(IOPRIO_WHO_USER, UID_A, IOPRIO_BE(2)));
	EXPECT_EQ(IOPRIO_BE(2), sys_ioprio_get(IOPRIO_WHO_USER, UID_A));

	SEND(&z, 'x');
	ASSERT_EQ(0, wait_zombie(z.pid));
	EXPECT_EQ('Z', proc_stat(z.pid, 0, STAT_STATE));
	errno = 0;
	EXPECT_EQ(3, getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(0, errno);
	ASSERT_EQ(0, setpriority(PRIO_USER, UID_A, 7));
	EXPECT_EQ(7, getpriority(PRIO_PROCESS, z.pid));
	EXPECT_EQ(7, getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(IOPRIO_BE((7 + 20) / 5),
		  sys_ioprio_get(IOPRIO_WHO_USER, UID_A));
	ASSERT_EQ(0, sys_ioprio_set(IOPRIO_WHO_USER, UID_A, IOPRIO_BE(1)));
	EXPECT_EQ(IOPRIO_BE((7 + 20) / 5),
		  sys_ioprio_get(IOPRIO_WHO_USER, UID_A));

	ASSERT_EQ(z.pid, waitpid(z.pid, NULL, 0));
	ASSERT_ERRNO(ESRCH, setpriority(PRIO_USER, UID_A, 1));
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_USER, UID_A));
	ASSERT_ERRNO(ESRCH, sys_ioprio_set(IOPRIO_WHO_USER, UID_A,
					   IOPRIO_BE(1)));
	ASSERT_ERRNO(ESRCH, sys_ioprio_get(IOPRIO_WHO_USER, UID_A));
}

struct exec_ctx {
	int go;			/* read: the test says "exec now" */
	int rep;		/* write: our tid, then 'r' from the new image */
};

static void *exec_thread(void *arg)
{
	struct exec_ctx *x = arg;
	pid_t tid = gettid();
	char buf[16], ch;

	if (write_full(x->rep, &tid, sizeof(tid)) ||
	    read_full(x->go, &ch, 1, CHILD_ALARM * 1000))
		_exit(4);
	/* pdeathsig is per thread: this one becomes the leader. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	snprintf(buf, sizeof(buf), "%d", x->rep);
	execl("/proc/self/exe", "session_test", PAUSE_ARG, buf, (char *)NULL);
	_exit(127);
}

/*
 * A process of UID_A that re-executes us (pause_main()) when the test
 * writes to @go: from its main thread, or (@from_thread) from a second
 * thread while a third one idles.
 */
static pid_t start_exec_child(int go, int rep, bool from_thread)
{
	struct exec_ctx x = { .go = go, .rep = rep };
	pid_t parent = getpid();
	pid_t pid = fork_child();
	sigset_t all;
	pthread_t th;

	if (pid)
		return pid;
	drop_privs(UID_A, parent, true);
	if (!from_thread)
		exec_thread(&x);
	sigfillset(&all);
	CHECK(pthread_sigmask(SIG_BLOCK, &all, NULL) == 0);
	CHECK(pthread_create(&th, NULL, idle_thread, NULL) == 0);
	CHECK(pthread_create(&th, NULL, exec_thread, &x) == 0);
	sigemptyset(&all);
	CHECK(pthread_sigmask(SIG_SETMASK, &all, NULL) == 0);
	for (;;)
		pause();
}

/* execve() keeps a process, and the thread that called it, counted. */
TEST_F(session, prio_user_exec)
{
	struct model m = { 0 };
	int go1[2], rep1[2], go2[2], rep2[2], n, i;
	pid_t x, y, tx, ty, tids[4];
	char ch = 0;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	ASSERT_EQ(0, pipe(go1));
	ASSERT_EQ(0, pipe(rep1));
	ASSERT_EQ(0, pipe(go2));
	ASSERT_EQ(0, pipe(rep2));

	/* A single-threaded process. */
	x = start_exec_child(go1[0], rep1[1], false);
	ASSERT_LT(0, x);
	ASSERT_EQ(0, read_full(rep1[0], &tx, sizeof(tx), TIMEOUT_MS));
	ASSERT_EQ(x, tx);
	model_add(_metadata, &m, x, x, UID_A, 8, IOPRIO_BE(7));
	model_check(_metadata, &m);
	ASSERT_EQ(1, write(go1[1], "g", 1));
	ASSERT_EQ(0, read_full(rep1[0], &ch, 1, TIMEOUT_MS));
	ASSERT_EQ('r', ch);
	model_check(_metadata, &m);
	model_set_user(_metadata, &m, UID_A, 9);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(6));
	model_probe(_metadata, &m);

	/*
	 * exec from a non-leader thread: de_thread() kills the other
	 * threads and the exec'ing thread takes over the leader's pid.
	 * The old leader and the idle thread held uid A's best values.
	 */
	y = start_exec_child(go2[0], rep2[1], true);
	ASSERT_LT(0, y);
	ASSERT_EQ(0, read_full(rep2[0], &ty, sizeof(ty), TIMEOUT_MS));
	ASSERT_NE(y, ty);
	n = list_tids(y, tids, 4);
	ASSERT_EQ(3, n);
	for (i = 0; i < n; i++) {
		if (tids[i] == ty)
			model_add(_metadata, &m, y, ty, UID_A, 10, IOPRIO_BE(6));
		else
			model_add(_metadata, &m, y, tids[i], UID_A, 1 + i,
				  IOPRIO_BE(1 + i));
	}
	model_check(_metadata, &m);
	ASSERT_EQ(1, write(go2[1], "g", 1));
	ch = 0;
	ASSERT_EQ(0, read_full(rep2[0], &ch, 1, TIMEOUT_MS));
	ASSERT_EQ('r', ch);
	ASSERT_EQ(1, list_tids(y, tids, 4));
	ASSERT_EQ(y, tids[0]);
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_PROCESS, ty));
	/* The exec'ing thread kept its nice value and I/O priority. */
	model_del_pid(&m, y);
	model_track(_metadata, &m, y, y, UID_A, 10, IOPRIO_BE(6));
	model_check(_metadata, &m);
	errno = 0;
	EXPECT_EQ(9, getpriority(PRIO_USER, UID_A));
	EXPECT_EQ(0, errno);
	model_set_thread(_metadata, &m, x, 12, IOPRIO_BE(7));
	model_check(_metadata, &m);
	EXPECT_EQ(10, getpriority(PRIO_USER, UID_A));
	model_set_user(_metadata, &m, UID_A, 11);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(3));
	model_probe(_metadata, &m);

	ASSERT_EQ(0, kill(x, SIGKILL));
	ASSERT_EQ(128 + SIGKILL, wait_exit(x));
	ASSERT_EQ(0, kill(y, SIGKILL));
	ASSERT_EQ(128 + SIGKILL, wait_exit(y));
}

static void *exit_thread(void *arg)
{
	return NULL;
}

/*
 * c->arg long-lived threads, with a short-lived one created and joined
 * after every second of them; then reply the number of threads.
 */
static int many_threads_fn(struct child *c)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t th;
	int i;

	CHECK(pthread_attr_init(&attr) == 0);
	CHECK(pthread_attr_setstacksize(&attr, 64 * 1024) == 0);
	sigfillset(&all);
	CHECK(pthread_sigmask(SIG_SETMASK, &all, &old) == 0);
	for (i = 0; i < c->arg; i++) {
		CHECK(pthread_create(&th, &attr, idle_thread, NULL) == 0);
		if (i % 2 == 0)
			continue;
		CHECK(pthread_create(&th, &attr, exit_thread, NULL) == 0);
		CHECK(pthread_join(th, NULL) == 0);
	}
	CHECK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
	child_put_int(c, c->arg + 1);
	child_get_cmd(c);
	return 0;
}

#define MANY_THREADS	200

/* Hundreds of threads of one user (after churn): every one is reached. */
TEST_F(session, prio_user_many_threads)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	static struct model m;
	pid_t tids[MODEL_MAX];
	struct child u, v;
	int i, n;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	memset(&m, 0, sizeof(m));
	ASSERT_EQ(0, child_init(&u));
	u.uid = UID_A;
	u.fn = many_threads_fn;
	u.arg = MANY_THREADS;
	START(&u);
	ASSERT_REPLY(&u, MANY_THREADS + 1);
	/* The short-lived threads may not have been released yet. */
	do {
		n = list_tids(u.pid, tids, MODEL_MAX);
		if (n == MANY_THREADS + 1)
			break;
		usleep(5000);
	} while (now_ms() < deadline);
	ASSERT_EQ(MANY_THREADS + 1, n);
	ASSERT_EQ(0, child_init(&v));
	v.uid = UID_B;
	v.nthreads = 1;
	START(&v);

	for (i = 0; i < n; i++)
		model_add(_metadata, &m, u.pid, tids[i], UID_A, 1 + i % 15,
			  IOPRIO_BE(1 + i % 7));
	model_add_all(_metadata, &m, v.pid, UID_B, 3, IOPRIO_BE(3));
	model_check(_metadata, &m);
	model_set_user(_metadata, &m, UID_A, 17);
	model_set_user_ioprio(_metadata, &m, UID_A, IOPRIO_BE(2));
	model_set_user(_metadata, &m, UID_B, 4);
	model_probe(_metadata, &m);

	FINISH(&u);
	FINISH(&v);
}

struct user_best {
	int nice;
	int ioprio;
};

static int unpriv_user_fn(struct child *c)
{
	const struct user_best *b = c->data;
	int be6 = IOPRIO_BE(6), be7 = IOPRIO_BE(7);

	/*
	 * commoncap's cap_task_setnice() (cap_safe_nice()) refuses a task
	 * whose permitted capabilities are not a subset of ours, even one of
	 * our own uid: here the crew thread that still has saved uid 0.
	 * setpriority() goes on past it and returns the last error.
	 */
	CHECK_ERR(setpriority(PRIO_USER, UID_A, 11), EPERM);
	CHECK(getpriority(PRIO_PROCESS, 0) == 11);
	child_put_int(c, 0);
	child_get_cmd(c);

	/* Raising the nice of all of uid A's threads, ours and the crew's: */
	CHECK(setpriority(PRIO_USER, UID_A, 12) == 0);
	CHECK(getpriority(PRIO_USER, UID_A) == 12);
	CHECK(getpriority(PRIO_USER, 0) == 12);
	/* lowering it is refused by every one of them (RLIMIT_NICE 0). */
	CHECK_ERR(setpriority(PRIO_USER, UID_A, 11), EACCES);
	CHECK(getpriority(PRIO_USER, UID_A) == 12);
	/* uid B's threads, one of them in the crew, are not ours. */
	CHECK_ERR(setpriority(PRIO_USER, UID_B, 15), EPERM);
	errno = 0;
	CHECK(getpriority(PRIO_USER, UID_B) == b->nice && errno == 0);

	/*
	 * ioprio_set() stops at the first thread it may not change: it
	 * would fail if the crew's uid-B thread were walked for uid A.
	 */
	CHECK(sys_ioprio_set(IOPRIO_WHO_USER, UID_A, be6) == 0);
	CHECK(sys_ioprio_get(IOPRIO_WHO_PROCESS, 0) == be6);
	CHECK(sys_ioprio_get(IOPRIO_WHO_USER, UID_A) == be6);
	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_USER, UID_B, be7), EPERM);
	CHECK(sys_ioprio_get(IOPRIO_WHO_USER, UID_B) == b->ioprio);
	/*
	 * A 6.12 quirk: who == 0 is the caller's user for ioprio_get()
	 * (user = current_user()), but uid 0 for ioprio_set(), which
	 * compares task_uid() with make_kuid(ns, 0): it walks root's
	 * threads, fails with EPERM on the first one, and leaves ours.
	 */
	CHECK(sys_ioprio_get(IOPRIO_WHO_USER, 0) == be6);
	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_USER, 0, be7), EPERM);
	CHECK(sys_ioprio_get(IOPRIO_WHO_PROCESS, 0) == be6);
	CHECK(sys_ioprio_get(IOPRIO_WHO_USER, UID_A) == be6);
	/* The class is checked before any walk. */
	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_USER, UID_A,
				 IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 0)), EPERM);
	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_USER, UID_NONE, be7), ESRCH);
	CHECK_ERR(sys_ioprio_set(IOPRIO_WHO_USER, -1, be7), ESRCH);
	CHECK(sys_ioprio_get(IOPRIO_WHO_PROCESS, 0) == be6);
	return 0;
}

/*
 * An unprivileged uid-A caller: PRIO_USER / IOPRIO_WHO_USER on its own
 * uid reach uid A's threads of other processes but not a uid-B thread
 * inside a uid-A process; another user's threads are EPERM, lowering
 * nice values EACCES.
 */
TEST_F(session, prio_user_unpriv)
{
	struct model m = { 0 };
	struct user_best b = { 4, IOPRIO_BE(2) };
	struct child p, v, w;
	pid_t t[4];
	int i;

	REQUIRE_ROOT();
	REQUIRE_IOPRIO();
	/*
	 * t[0], t[1]: uid A without capabilities (saved uid A too);
	 * t[2]: uid B; t[3]: uid A with saved uid 0, for now.
	 */
	CREW_START(&p, t, 4);
	CREW(&p, 0, 'U', UID_A);
	CREW(&p, 1, 'U', UID_A);
	CREW(&p, 2, 'U', UID_B);
	ASSERT_EQ(0, child_init(&v));
	v.uid = UID_B;
	v.nthreads = 1;
	START(&v);
	for (i = 0; i < 4; i++)
		if (i != 2)
			model_add(_metadata, &m, p.pid, t[i], UID_A, 10,
				  IOPRIO_BE(3));
	model_add(_metadata, &m, p.pid, t[2], UID_B, b.nice, b.ioprio);
	model_add_all(_metadata, &m, v.pid, UID_B, 9, IOPRIO_BE(5));
	model_check(_metadata, &m);

	ASSERT_EQ(0, child_init(&w));
	w.uid = UID_A;
	w.pgid = 0;
	w.fn = unpriv_user_fn;
	w.data = &b;
	START(&w);
	ASSERT_REPLY(&w, 0);
	/* EPERM for t[3] alone; its uid-A siblings went to 11. */
	EXPECT_NICE(p.pid, t[0], 11);
	EXPECT_NICE(p.pid, t[1], 11);
	EXPECT_NICE(p.pid, t[2], b.nice);
	EXPECT_NICE(p.pid, t[3], 10);
	expect_nice(_metadata, v.pid, 9);
	CREW(&p, 3, 'U', UID_A);
	SEND(&w, 'g');
	EXPECT_EQ(0, wait_exit(w.pid));

	/* w changed exactly the crew's uid-A threads (and itself). */
	for (i = 0; i < 4; i++) {
		int k = model_find(&m, t[i]);

		ASSERT_LE(0, k);
		if (i == 2)
			continue;
		m.nice[k] = 12;
		m.ioprio[k] = IOPRIO_BE(6);
	}
	model_check(_metadata, &m);
	model_probe(_metadata, &m);
	CREW_FINISH(&p);
	FINISH(&v);
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

	OPEN_PTY(&pty);
	ASSERT_EQ(0, child_init(&c));
	c.new_session = true;
	c.fn = tiocsctty_leader_fn;
	c.data = &t;
	START(&c);
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

	OPEN_PTY(&pty);
	ASSERT_EQ(0, child_init(&c1));
	c1.new_session = true;
	c1.fn = open_ctty_fn;
	c1.data = &t;
	c1.arg = 1;
	START(&c1);
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

	OPEN_PTY(&pty);
	OPEN_PTY(&pty2);
	ASSERT_EQ(0, child_init(&c1));
	c1.pgid = 0;
	c1.fn = tiocsctty_not_leader_fn;
	c1.data = &t;
	START(&c1);
	EXPECT_EQ(0, wait_exit(c1.pid));
	ASSERT_ERRNO(ENOTTY, tiocgsid(pty.master));

	/* A session leader that already has a controlling tty. */
	ASSERT_EQ(0, child_init(&c2));
	c2.new_session = true;
	c2.fn = tiocsctty_has_ctty_fn;
	c2.data = &t;
	START(&c2);
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

	REQUIRE_ROOT();
	OPEN_PTY(&pty);
	ASSERT_EQ(0, child_init(&v));
	v.new_session = true;
	v.fn = steal_victim_fn;
	v.data = &t;
	START(&v);
	ASSERT_REPLY(&v, 0);
	ASSERT_EQ(v.pid, tiocgsid(pty.master));

	ASSERT_EQ(0, child_init(&u));
	u.new_session = true;
	u.fn = steal_unpriv_fn;
	u.data = &t;
	START(&u);
	EXPECT_EQ(0, wait_exit(u.pid));
	EXPECT_EQ(v.pid, tiocgsid(pty.master));

	/* With CAP_SYS_ADMIN and arg 1 the tty is stolen. */
	ASSERT_EQ(0, child_init(&s));
	s.new_session = true;
	s.fn = steal_root_fn;
	s.data = &t;
	START(&s);
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

	OPEN_PTY(&pty);
	ASSERT_EQ(0, child_init(&d));	/* foreground: the leader's group */
	ASSERT_EQ(0, child_init(&e));	/* background: a group of its own */
	e.pgid = 0;
	ASSERT_EQ(0, child_init(&c));
	c.new_session = true;
	c.fn = notty_leader_fn;
	c.data = &t;
	START(&c);
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

	OPEN_PTY(&pty);
	ASSERT_EQ(0, child_init(&d));
	d.pgid = 0;
	d.fn = notty_member_fn;
	d.data = &t;
	ASSERT_EQ(0, child_init(&c));
	c.new_session = true;
	c.fn = notty_member_leader_fn;
	c.data = &t;
	START(&c);
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

	OPEN_PTY(&pty);
	ASSERT_EQ(0, child_init(&d));	/* another group of the session */
	d.pgid = 0;
	ASSERT_EQ(0, child_init(&e));	/* member of the leader's group */
	ASSERT_EQ(0, child_init(&c));
	c.new_session = true;
	c.fn = tcsetpgrp_fn;
	c.data = &t;
	c.arg = getpid();
	START(&c);
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

	OPEN_PTY(&pty);
	ASSERT_EQ(0, child_init(&m));
	m.pgid = 0;
	m.no_pdeathsig = true;
	ASSERT_EQ(0, child_init(&n));
	n.pgid = 0;
	n.no_pdeathsig = true;
	ASSERT_EQ(0, child_init(&l));
	l.new_session = true;
	l.fn = hangup_leader_fn;
	l.data = &t;
	START(&l);
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
	ASSERT_EQ(0, child_init(&a));
	a.new_session = true;
	a.fn = orphan_parent_fn;
	a.data = &t;
	START(&a);
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

	ASSERT_EQ(0, child_init(&p1));
	p1.pgid = 0;
	START(&p1);
	ASSERT_EQ(0, child_init(&p2));
	p2.pgid = p1.pid;
	p2.nthreads = 1;
	START(&p2);
	ASSERT_EQ(0, child_init(&o));
	o.pgid = 0;
	START(&o);
	ASSERT_EQ(0, child_init(&o2));
	START(&o2);

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

/* ------------------------------------------------------------------ */
/* PRIO_USER: uids with bit 31 set, threads that change users          */
/* ------------------------------------------------------------------ */

#define UID_HIGH	3000000000U	/* bit 31 set */

/*
 * A uid with bit 31 set has its processes found like any other. On
 * 32-bit, the per-user thread list of such a uid once ended in a marker
 * that its own walk did not recognise: the walk never ended.
 */
TEST_F(session, prio_user_high_uid)
{
	struct child v;

	REQUIRE_ROOT();
	ASSERT_EQ(0, child_init(&v));
	v.uid = UID_HIGH;
	START(&v);

	errno = 0;
	EXPECT_EQ(0, getpriority(PRIO_USER, UID_HIGH));
	EXPECT_EQ(0, errno);
	EXPECT_EQ(0, setpriority(PRIO_USER, UID_HIGH, 7));
	EXPECT_EQ(7, getpriority(PRIO_USER, UID_HIGH));
	if (sys_ioprio_get(IOPRIO_WHO_PROCESS, 0) >= 0) {
		int be2 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 2);

		EXPECT_EQ(0, sys_ioprio_set(IOPRIO_WHO_USER, UID_HIGH, be2));
		EXPECT_EQ(be2, sys_ioprio_get(IOPRIO_WHO_USER, UID_HIGH));
	}
	/* The uid that differs only in bit 31 has no process. */
	ASSERT_ERRNO(ESRCH, getpriority(PRIO_USER, UID_HIGH & 0x7fffffff));
	FINISH(&v);
}

#define FLIPPERS	4
#define STORM_CALLS	500

static volatile int storm_stop;

/* Flip this thread's real uid between UID_B and UID_A; euid stays 0. */
static void *flip_fn(void *arg)
{
	(void)arg;
	while (!storm_stop) {
		if (syscall(SYS_setresuid, UID_B, 0, 0) ||
		    syscall(SYS_setresuid, UID_A, 0, 0))
			break;
	}
	return NULL;
}

/* Keep uid A on the main thread, flip it on FLIPPERS threads until 'x'. */
static int flip_storm_fn(struct child *c)
{
	pthread_t th[FLIPPERS];
	int i;

	CHECK(syscall(SYS_setresuid, UID_A, 0, 0) == 0);
	for (i = 0; i < FLIPPERS; i++)
		CHECK(pthread_create(&th[i], NULL, flip_fn, NULL) == 0);
	child_put_int(c, 0);
	child_get_cmd(c);
	storm_stop = 1;
	for (i = 0; i < FLIPPERS; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/*
 * setpriority(PRIO_USER) and getpriority(PRIO_USER) finish while threads
 * flip their real uid between two users as fast as they can (a raw
 * setresuid(), which changes one thread only), and always find the thread
 * that keeps the uid the whole time. A walk that starts again whenever
 * the thread it stands on moves could go on for ever with RCU stalled:
 * the kernel log check of the run catches a stall.
 */
TEST_F_TIMEOUT(session, prio_user_flip_storm, 120)
{
	int i, esrch = 0, fails = 0;
	long long t0, worst = 0;
	struct child v;

	REQUIRE_ROOT();
	ASSERT_EQ(0, child_init(&v));
	v.fn = flip_storm_fn;
	START(&v);
	ASSERT_REPLY(&v, 0);

	for (i = 0; i < STORM_CALLS; i++) {
		long long d;

		t0 = now_ms();
		if (setpriority(PRIO_USER, UID_A, i % 10))
			fails++;
		errno = 0;
		if (getpriority(PRIO_USER, UID_A) == -1 && errno == ESRCH)
			esrch++;
		d = now_ms() - t0;
		if (d > worst)
			worst = d;
	}
	TH_LOG("%d setpriority()+getpriority() pairs, the slowest %lld ms",
	       STORM_CALLS, worst);
	EXPECT_EQ(0, fails);
	EXPECT_EQ(0, esrch);
	FINISH(&v);
}

#define EXIT_ARG	"--session-test-exit"
#define EXEC_ROUNDS	400
#define EXEC_THREADS	3

static volatile int exec_stop;

struct exec_probe {
	long answers, esrch, bad, rounds;
	int bad_value;
};

/* getpriority(PRIO_USER, UID_A) until told to stop; tally the answers. */
static void *exec_probe_fn(void *arg)
{
	struct exec_probe *p = arg;
	int v;

	while (!exec_stop) {
		errno = 0;
		v = getpriority(PRIO_USER, UID_A);
		if (v == -1 && errno == ESRCH) {
			p->esrch++;
		} else if (v != 11) {
			p->bad++;
			p->bad_value = v;
		}
		p->answers++;
	}
	return NULL;
}

static int exec_ready[2];

/* A thread at nice 14 until de_thread() kills it. */
static void *nice14_thread(void *arg)
{
	(void)arg;
	if (setpriority(PRIO_PROCESS, syscall(SYS_gettid), 14) ||
	    write(exec_ready[1], "t", 1) != 1)
		_exit(3);
	for (;;)
		pause();
}

/* Leave uid A for uid B (this thread only), then exec an image that exits. */
static void *exec_exit_thread(void *arg)
{
	(void)arg;
	if (syscall(SYS_setresuid, UID_B, 0, 0))
		_exit(5);
	execl("/proc/self/exe", "session_test", EXIT_ARG, (char *)NULL);
	_exit(127);
}

/*
 * One round: a leader at nice 11 with real uid A, EXEC_THREADS threads at
 * nice 14, and a last thread that moves to uid B and execs. At every
 * instant, the leader is there whenever a nice-14 thread is: de_thread()
 * releases the other threads before the old leader.
 */
static void exec_round_child(void)
{
	pthread_t th;
	char ch;
	int i;

	CHECK(setpriority(PRIO_PROCESS, 0, 11) == 0);
	CHECK(syscall(SYS_setresuid, UID_A, 0, 0) == 0);
	CHECK(pipe(exec_ready) == 0);
	for (i = 0; i < EXEC_THREADS; i++) {
		CHECK(pthread_create(&th, NULL, nice14_thread, NULL) == 0);
		CHECK(read(exec_ready[0], &ch, 1) == 1);
	}
	CHECK(pthread_create(&th, NULL, exec_exit_thread, NULL) == 0);
	for (;;)
		pause();
}

/*
 * getpriority(PRIO_USER) only answers values that were true at some
 * instant, while processes exec from a non-leader thread beside it: 11
 * (the leader is there) or ESRCH (all gone), never the nice 14 of the
 * threads that de_thread() killed. A walk that met those threads before
 * their leader could count them alive and then find the leader released.
 * Natural timing makes the window rare; KUnit's user_tasks_test_release_order
 * forces it.
 */
TEST_F_TIMEOUT(session, prio_user_exec_consistent, 180)
{
	long long deadline = now_ms() + 60 * 1000;
	struct exec_probe p = { 0 };
	pthread_t probe;
	int i, status = 0;
	pid_t pid;

	REQUIRE_ROOT();
	exec_stop = 0;
	ASSERT_EQ(0, pthread_create(&probe, NULL, exec_probe_fn, &p));
	for (i = 0; i < EXEC_ROUNDS && now_ms() < deadline; i++) {
		pid = fork_child();
		if (pid == 0)
			exec_round_child();
		status = pid < 0 ? -1 : wait_exit(pid);
		if (status)
			break;
		p.rounds++;
	}
	exec_stop = 1;
	pthread_join(probe, NULL);
	TH_LOG("%ld execs, %ld answers (%ld ESRCH), %ld of them wrong (last %d)",
	       p.rounds, p.answers, p.esrch, p.bad, p.bad_value);
	EXPECT_EQ(0, status);
	EXPECT_LE(100, p.rounds);
	EXPECT_EQ(0, p.bad);
}

#define CHAIN_THREADS	3000
#define CHAIN_ROUNDS	8

/* Shared by the test, its walker thread and the chain's processes. */
struct chain {
	long started;		/* walks the walker began */
	long answers, wrong;
	int last_wrong, stop;
	int cmd[2], reply[2];	/* to the chain's live link, and back */
};

static struct chain *chain;

/* getpriority(PRIO_USER, UID_A) until told to stop: always 0 (nice 0). */
static void *chain_walker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&chain->stop, __ATOMIC_SEQ_CST)) {
		int v;

		__atomic_add_fetch(&chain->started, 1, __ATOMIC_SEQ_CST);
		errno = 0;
		v = getpriority(PRIO_USER, UID_A);
		if (v != 0) {
			chain->wrong++;
			chain->last_wrong = v == -1 && errno ? -errno : v;
		}
		chain->answers++;
	}
	return NULL;
}

/*
 * One link of the chain, uid A at nice 0: says it is up, and on 'f'
 * waits until a walk begins, forks the next link and exits at once; its
 * parent, a subreaper that ignores SIGCHLD, releases it as it exits.
 */
static void __attribute__((noreturn)) chain_link(void)
{
	long seen;
	pid_t pid;
	char c;

	alarm(CHILD_ALARM * 6);
	CHECK(write(chain->reply[1], "l", 1) == 1);
	CHECK(read_full(chain->cmd[0], &c, 1, CHILD_ALARM * 6000) == 0);
	if (c != 'f')
		_exit(0);
	seen = __atomic_load_n(&chain->started, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&chain->started, __ATOMIC_SEQ_CST) == seen)
		;
	pid = fork();
	if (pid == 0)
		chain_link();
	_exit(pid < 0);
}

static void __attribute__((noreturn)) chain_manager(void)
{
	pid_t pid;

	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	CHECK(signal(SIGCHLD, SIG_IGN) != SIG_ERR);
	alarm(CHILD_ALARM * 6);
	pid = fork();
	if (pid == 0) {
		drop_privs(UID_A, 0, false);
		chain_link();
	}
	CHECK(pid > 0);
	for (;;)
		pause();
}

static void *chain_park(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* CHAIN_THREADS threads of uid A at nice 10, created after the leader moved. */
static void __attribute__((noreturn)) chain_crowd(pid_t parent, int ready)
{
	struct rlimit nproc = { RLIM_INFINITY, RLIM_INFINITY };
	pthread_attr_t attr;
	pthread_t t;
	int i;

	alarm(CHILD_ALARM * 6);
	CHECK(setpriority(PRIO_PROCESS, 0, 10) == 0);
	/* uid A's threads would otherwise stop at RLIMIT_NPROC. */
	CHECK(setrlimit(RLIMIT_NPROC, &nproc) == 0);
	drop_privs(UID_A, parent, true);
	CHECK(pthread_attr_init(&attr) == 0);
	CHECK(pthread_attr_setstacksize(&attr, 16384) == 0);
	for (i = 0; i < CHAIN_THREADS; i++)
		CHECK(pthread_create(&t, &attr, chain_park, NULL) == 0);
	CHECK(write(ready, "c", 1) == 1);
	for (;;)
		pause();
}

/*
 * getpriority(PRIO_USER) meets a process that forks its successor and
 * exits while the walk is under way, as a walk of every thread meets every
 * task forked before it ends: a nice-0 process of uid A exists at every
 * instant, so every answer is 0. Each round puts a new crowd of nice-10
 * threads of uid A in front of the chain's live link (its leader moves to
 * uid A after the link exists), then the link waits for a walk to begin,
 * forks and exits. A list that puts the successor where the walk already
 * was, and lets the link go before the walk reaches it, answers 10. The
 * window is wide under KASAN (make check-debug); KUnit's
 * user_tasks_test_fork_under_walk forces it.
 */
TEST_F_TIMEOUT(session, prio_user_fork_chain, 300)
{
	int ready[2], r, status = 0;
	pid_t mgr, crowd;
	pthread_t walker;
	char c;

	REQUIRE_ROOT();
	chain = mmap(NULL, sizeof(*chain), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, chain);
	ASSERT_EQ(0, pipe(chain->cmd));
	ASSERT_EQ(0, pipe(chain->reply));
	ASSERT_EQ(0, pipe(ready));
	mgr = fork_child();
	ASSERT_LE(0, mgr);
	if (mgr == 0)
		chain_manager();
	ASSERT_EQ(0, read_full(chain->reply[0], &c, 1, TIMEOUT_MS));
	ASSERT_EQ(0, pthread_create(&walker, NULL, chain_walker, NULL));

	for (r = 0; r < CHAIN_ROUNDS && !status; r++) {
		long walks;

		crowd = fork_child();
		if (crowd == 0)
			chain_crowd(getppid(), ready[1]);
		status = crowd < 0 || read_full(ready[0], &c, 1, CHILD_ALARM * 5000);
		/* The link forks its successor once a walk has begun, and exits. */
		if (!status)
			status = write(chain->cmd[1], "f", 1) != 1 ||
				 read_full(chain->reply[0], &c, 1, TIMEOUT_MS);
		/* Two more walks, then the crowd goes. */
		walks = __atomic_load_n(&chain->started, __ATOMIC_SEQ_CST);
		while (!status && __atomic_load_n(&chain->started, __ATOMIC_SEQ_CST) < walks + 2)
			usleep(1000);
		if (crowd > 0) {
			kill(crowd, SIGKILL);
			waitpid(crowd, NULL, 0);
		}
	}
	__atomic_store_n(&chain->stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(walker, NULL);
	kill(mgr, SIGKILL);
	waitpid(mgr, NULL, 0);
	TH_LOG("%d rounds, %ld getpriority() answers, %ld of them wrong (last %d)",
	       r, chain->answers, chain->wrong, chain->last_wrong);
	EXPECT_EQ(0, status);
	EXPECT_EQ(CHAIN_ROUNDS, r);
	EXPECT_EQ(0, chain->wrong);
	munmap(chain, sizeof(*chain));
}

int main(int argc, char **argv)
{
	/* setpgid_eacces_after_exec re-executes us with PAUSE_ARG. */
	if (argc == 3 && !strcmp(argv[1], PAUSE_ARG))
		return pause_main(atoi(argv[2]));
	/* prio_user_exec_consistent's execs end at once. */
	if (argc == 2 && !strcmp(argv[1], EXIT_ARG))
		return 0;
	return test_harness_run(argc, argv);
}
