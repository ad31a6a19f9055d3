/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the programs of this directory.  Include it after
 * kselftest_harness.h.  Everything is static inline, so a program that does
 * not use a helper gets no -Wunused-function warning.
 *
 *  - For all of them: time, bounded pipe I/O, small /proc files, checks in
 *    helper processes (CHECK*()) and the fixture's final reap.
 *  - For the programs with FIXTURE(session) (session_test, pgrp_test,
 *    tty_test, prio_test, prio_user_test, prio_user_race_test): helper
 *    processes driven over pipes that record the signals they receive,
 *    ptys, nice values and I/O priorities, and the fixture.
 *  - For the programs with FIXTURE(pid) (pid_max_test, set_tid_test,
 *    pid_reuse_test, threads_test): fork() and clone3() with set_tid, with
 *    bounded waits, scenarios run as the init of a new PID namespace, and
 *    the fixture that restores pid_max and threads-max.
 *
 * A program gets its fixture, FIXTURE(session) or FIXTURE(pid) with its
 * setup and teardown, by defining UTIL_FIXTURE_SESSION or UTIL_FIXTURE_PID
 * before it includes this file: the harness registers every FIXTURE() a
 * program defines, so this file defines only the one asked for.
 *
 * The two groups were written with different bounds for a wait and for the
 * life of a helper: TIMEOUT_MS and CHILD_ALARM for the first,
 * PID_TIMEOUT_MS and PID_CHILD_ALARM for the second.
 */
#ifndef SELFTESTS_PID_UTIL_H
#define SELFTESTS_PID_UTIL_H

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
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/ioprio.h>
#include <linux/sched.h>	/* struct clone_args */

/* Fields of /proc/<pid>/stat, numbered as in proc(5). */
enum {
	STAT_STATE	= 3,
	STAT_PPID	= 4,
	STAT_PGRP	= 5,
	STAT_SESSION	= 6,
	STAT_TTY_NR	= 7,
	STAT_TPGID	= 8,
	STAT_NICE	= 19,
};

/* CLOCK_MONOTONIC in milliseconds. */
static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Read exactly @len bytes within @timeout_ms; 0 or a negative errno. */
static inline int read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -ETIMEDOUT;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EPIPE;
		p += n;
		len -= n;
	}
	return 0;
}

/* Write all @len bytes; 0 or -1. */
static inline int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * One read() of the file @path into @buf (at most @size - 1 bytes), NUL
 * terminated: the number of bytes read, or a negative errno.
 */
static inline ssize_t read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* A number from a /proc file; 0 or a negative errno. */
static inline int read_long(const char *path, long *val)
{
	char buf[64];
	ssize_t n = read_text(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	*val = strtol(buf, NULL, 10);
	return 0;
}

/* Write a string to a /proc, /sys or cgroup file; 0 or a negative errno. */
static inline int write_text(const char *path, const char *text)
{
	ssize_t len = strlen(text);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, text, len) != len)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/* Write a number to a /proc file; 0 or a negative errno. */
static inline int write_long(const char *path, long val)
{
	char buf[32];
	int fd, len, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%ld", val);
	errno = 0;
	if (write(fd, buf, len) != len)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/*
 * Field @field of /proc/<pid>/stat, or of /proc/<pid>/task/<tid>/stat if
 * @tid is set, or of /proc/self/stat if both are 0.  The state field is
 * returned as its character.  LONG_MIN if it cannot be read.
 */
static inline long proc_stat(pid_t pid, pid_t tid, int field)
{
	char path[64], buf[1024], *p;
	int i;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	else if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return LONG_MIN;
	p = strrchr(buf, ')');
	if (!p || field < STAT_STATE)
		return LONG_MIN;
	p += 2;
	for (i = STAT_STATE; i < field; i++) {
		p = strchr(p, ' ');
		if (!p)
			return LONG_MIN;
		p++;
	}
	if (field == STAT_STATE)
		return *p;
	return strtol(p, NULL, 10);
}

/* A thread that does nothing until its process exits. */
static inline void *idle_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* SIGKILL every child of the caller, including adopted orphans. */
static inline void kill_children(void)
{
	pid_t self = getpid();
	struct dirent *e;
	DIR *d = opendir("/proc");

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t pid = atoi(e->d_name);

		if (pid > 0 && pid != self &&
		    proc_stat(pid, 0, STAT_PPID) == self)
			kill(pid, SIGKILL);
	}
	closedir(d);
}

/* SIGKILL and reap every child until none is left or @timeout_ms ends. */
static inline void reap_all(int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;

	for (;;) {
		pid_t pid;

		kill_children();
		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (pid < 0 && errno == ECHILD)
			return;
		if (now_ms() > deadline)
			return;
		usleep(10000);
	}
}

/* Checks in helper processes: report on stderr and exit with status 1. */
#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "# pid %d: %s:%d: CHECK(%s) failed, "	\
			"errno %d (%s)\n", getpid(), __func__,		\
			__LINE__, #cond, errno, strerror(errno));	\
		_exit(1);						\
	}								\
} while (0)

#define CHECK_EQ(expr, expected) do {					\
	long __v = (long)(expr), __e = (long)(expected);		\
	if (__v != __e) {						\
		fprintf(stderr, "# pid %d: %s:%d: %s is %ld, expected "	\
			"%s = %ld\n", getpid(), __func__, __LINE__,	\
			#expr, __v, #expected, __e);			\
		_exit(1);						\
	}								\
} while (0)

/* @expr must fail with -1 and errno @err. */
#define CHECK_ERR(expr, err) do {					\
	int __err = (err);						\
	long __r;							\
	errno = 0;							\
	__r = (long)(expr);						\
	if (__r != -1 || errno != __err) {				\
		fprintf(stderr, "# pid %d: %s:%d: %s = %ld, errno %d "	\
			"(%s), expected -1 and errno %d (%s)\n",	\
			getpid(), __func__, __LINE__, #expr, __r,	\
			errno, strerror(errno), __err, strerror(__err)); \
		_exit(1);						\
	}								\
} while (0)

/* The same in the test body. */
#define ASSERT_ERRNO(err, expr) do {					\
	long __r;							\
	errno = 0;							\
	__r = (long)(expr);						\
	ASSERT_EQ(-1, __r) TH_LOG("%s did not fail", #expr);		\
	ASSERT_EQ((err), errno) TH_LOG("%s: %s", #expr, strerror(errno)); \
} while (0)

/* ------------------------------------------------------------------ */
/* Sessions and process groups: helper processes                       */
/* ------------------------------------------------------------------ */

/*
 * Each test body of FIXTURE(session) runs in a process group of its own and
 * is a child subreaper.  Helper processes talk to it over pipes, record the
 * signals they receive (number, si_code, si_pid, in the order handled), die
 * with their parent (PR_SET_PDEATHSIG) or after CHILD_ALARM seconds at the
 * latest, and are killed and reaped by the fixture teardown: they never
 * outlive a test.  Every wait is bounded by TIMEOUT_MS.
 */

#define UID_A		4242	/* unprivileged owners of helper processes */
#define UID_B		4343
#define UID_NONE	4545	/* no process ever runs with this uid */
#define TIMEOUT_MS	5000	/* bound for every wait of a test */
#define CHILD_ALARM	20	/* helpers are SIGALRMed after this (s) */

/* The thread ids of @pid, at most @max of them; returns how many. */
static inline int list_tids(pid_t pid, pid_t *tids, int max)
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
static inline pid_t other_tid(pid_t pid)
{
	pid_t tids[16];
	int i, n = list_tids(pid, tids, 16);

	for (i = 0; i < n && i < 16; i++)
		if (tids[i] != pid)
			return tids[i];
	return -1;
}

/* A pid that no task uses: a child's, once it has been reaped. */
static inline pid_t unused_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return -1;
	return pid;
}

/*
 * Bounded waitpid(@pid, @status, WNOHANG | @options) until it reports on
 * @pid: 0, or -1 on an error or after TIMEOUT_MS.
 */
static inline int wait_status(pid_t pid, int *status, int options)
{
	long long deadline = now_ms() + TIMEOUT_MS;

	do {
		pid_t r = waitpid(pid, status, WNOHANG | options);

		if (r == pid)
			return 0;
		if (r < 0)
			return -1;
		usleep(5000);
	} while (now_ms() < deadline);
	return -1;
}

/* Bounded waitpid(): exit status, 128 + signal, or -1 on timeout. */
static inline int wait_exit(pid_t pid)
{
	int status;

	if (wait_status(pid, &status, 0))
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
				   128 + WTERMSIG(status);
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

static inline void rec_handler(int sig, siginfo_t *si, void *uc)
{
	int i = rec.n;

	if (i < REC_MAX) {
		rec.sig[i] = sig;
		rec.code[i] = si->si_code;
		rec.pid[i] = si->si_pid;
	}
	rec.n = i + 1;
}

static inline int rec_install(void)
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

static inline void rec_snapshot(struct sigrec *r)
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
static inline void child_put(struct child *c, const void *buf, size_t len)
{
	if (write_full(c->rep[1], buf, len))
		_exit(5);
}

static inline void child_put_int(struct child *c, int v)
{
	child_put(c, &v, sizeof(v));
}

static inline char child_get_cmd(struct child *c)
{
	char cmd;

	if (read_full(c->cmd[0], &cmd, 1, CHILD_ALARM * 1000))
		_exit(4);
	return cmd;
}

static inline void drop_privs(uid_t uid, pid_t parent, bool pdeathsig)
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

static inline __noreturn void child_main(struct child *c)
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
static inline int child_init(struct child *c)
{
	memset(c, 0, sizeof(*c));
	c->pgid = -1;
	c->pid = -1;
	if (pipe2(c->cmd, O_CLOEXEC))
		return -1;
	return pipe2(c->rep, O_CLOEXEC);
}

/* Close our copies of the child's pipe ends, once it has been forked. */
static inline void child_forget_ends(struct child *c)
{
	close(c->cmd[0]);
	close(c->rep[1]);
	c->cmd[0] = -1;
	c->rep[1] = -1;
}

static inline pid_t child_start(struct child *c)
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

static inline int child_send_cmd(struct child *c, char cmd)
{
	return write_full(c->cmd[1], &cmd, 1);
}

static inline int child_recv(struct child *c, void *buf, size_t len)
{
	return read_full(c->rep[0], buf, len, TIMEOUT_MS);
}

/* Wait for the "ready" message, which carries the child's pid. */
static inline int child_ready(struct child *c)
{
	int pid;

	if (child_recv(c, &pid, sizeof(pid)))
		return -1;
	if (c->pid > 0 && pid != c->pid)
		return -1;
	c->pid = pid;
	return 0;
}

static inline int child_query(struct child *c, struct sigrec *r)
{
	if (child_send_cmd(c, 'q'))
		return -1;
	return child_recv(c, r, sizeof(*r));
}

#define START(c) do {							\
	struct child *__c = (c);					\
	ASSERT_LT(0, child_start(__c));					\
	ASSERT_EQ(0, child_ready(__c));					\
} while (0)

/*
 * SPAWN(c, settings): child_init(c), the settings (assignments to the
 * fields of *c, separated by commas), then START(c):
 *	SPAWN(&u1, u1.uid = UID_A, u1.nthreads = 2);
 */
#define SPAWN(c, ...) do {						\
	struct child *__s = (c);					\
	ASSERT_EQ(0, child_init(__s));					\
	__VA_ARGS__;							\
	START(__s);							\
} while (0)

#define ASSERT_REPLY(c, expected) do {					\
	struct child *__c = (c);					\
	int __reply = INT_MIN;						\
	ASSERT_EQ(0, child_recv(__c, &__reply, sizeof(__reply)))	\
		TH_LOG("no reply from child %d", __c->pid);		\
	ASSERT_EQ((expected), __reply);					\
} while (0)

#define SEND(c, cmd) ASSERT_EQ(0, child_send_cmd((c), (cmd)))

/* Ask a command-loop child to exit, or let a fn child finish. */
#define FINISH(c) do {							\
	struct child *__c = (c);					\
	SEND(__c, 'x');							\
	ASSERT_EQ(0, wait_exit(__c->pid));				\
} while (0)

static inline void check_rec(struct __test_metadata *_metadata, const char *who,
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

static inline void expect_rec(struct __test_metadata *_metadata,
			      const char *who, struct child *c, int n, int sig0,
			      int sig1, int code, pid_t from)
{
	struct sigrec r;

	ASSERT_EQ(0, child_query(c, &r)) TH_LOG("%s does not answer", who);
	check_rec(_metadata, who, &r, n, sig0, sig1, code, from);
}

/* A child for a few lines of code, without the pipe protocol. */
static inline pid_t fork_child(void)
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

static inline int pause_main(int fd)
{
	if (write(fd, "r", 1) != 1)
		return 1;
	for (;;)
		pause();
}

/* ------------------------------------------------------------------ */
/* Nice values and I/O priorities                                      */
/* ------------------------------------------------------------------ */

static inline long sys_getpriority(int which, int who)
{
	return syscall(SYS_getpriority, which, who);
}

static inline int sys_ioprio_set(int which, int who, int ioprio)
{
	return syscall(SYS_ioprio_set, which, who, ioprio);
}

static inline int sys_ioprio_get(int which, int who)
{
	return syscall(SYS_ioprio_get, which, who);
}

#define EXPECT_NICE(pid, tid, nice) do {				\
	__typeof__(nice) __nice = (nice);				\
	pid_t __tid = (tid);						\
	errno = 0;							\
	EXPECT_EQ(__nice, getpriority(PRIO_PROCESS, __tid))		\
		TH_LOG("getpriority(tid %d): %s", __tid, strerror(errno)); \
	EXPECT_EQ(__nice, proc_stat((pid), __tid, STAT_NICE))		\
		TH_LOG("nice of tid %d in /proc", __tid);		\
} while (0)

/*
 * Every thread of @pid has nice value @v (@ioprio false) or I/O priority
 * @v (@ioprio true; as set, i.e. raw).
 */
static inline void expect_threads(struct __test_metadata *_metadata,
				  pid_t pid, bool ioprio, int v)
{
	pid_t tids[16];
	int i, n = list_tids(pid, tids, 16);

	ASSERT_LT(0, n);
	for (i = 0; i < n && i < 16; i++) {
		if (!ioprio)
			EXPECT_NICE(pid, tids[i], v);
		else
			EXPECT_EQ(v, sys_ioprio_get(IOPRIO_WHO_PROCESS, tids[i]))
				TH_LOG("ioprio of tid %d", tids[i]);
	}
}

static inline void expect_nice(struct __test_metadata *_metadata, pid_t pid,
			       int nice)
{
	expect_threads(_metadata, pid, false, nice);
}

static inline void expect_ioprio(struct __test_metadata *_metadata, pid_t pid,
				 int ioprio)
{
	expect_threads(_metadata, pid, true, ioprio);
}

/*
 * For tests that need ioprio_set()/ioprio_get(): skip the test (and
 * return false) when the kernel has no ioprio_get(). Asked about the
 * caller itself, ioprio_get() cannot fail on a kernel that has it, so
 * any error means it is missing (CONFIG_BLOCK=n).
 */
static inline bool have_ioprio(struct __test_metadata *_metadata)
{
	if (sys_ioprio_get(IOPRIO_WHO_PROCESS, 0) < 0)
		SKIP(return false, "ioprio_get() fails: %s (CONFIG_BLOCK=n?)",
		     strerror(errno));
	return true;
}

/* Root, with ioprio_get() that works; or the test is skipped (false). */
static inline bool root_with_ioprio(struct __test_metadata *_metadata)
{
	if (geteuid())
		SKIP(return false, "needs root");
	return have_ioprio(_metadata);
}

/*
 * The I/O priority a task reports to IOPRIO_WHO_PGRP/USER when it never
 * set one: derived from nice 0 under SCHED_OTHER, i.e. best effort,
 * level (0 + 20) / 5 (__get_task_ioprio()).
 */
#define IOPRIO_NICE0 IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)

/* ------------------------------------------------------------------ */
/* Terminal helpers                                                    */
/* ------------------------------------------------------------------ */

struct pty {
	int master;
	char name[64];
};

static inline int pty_open(struct pty *p)
{
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0)
		return -1;
	if (grantpt(p->master) || unlockpt(p->master) ||
	    ptsname_r(p->master, p->name, sizeof(p->name)))
		return -1;
	return 0;
}

/* What a test hands to an intermediate helper. */
struct ctx {
	struct pty *pty, *pty2;
	struct child *d, *e;
};

/* 0 if /dev/tty (the controlling tty) can be opened, else the errno. */
static inline int devtty_errno(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static inline int ctty_open(const char *name)
{
	int fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);

	CHECK(fd >= 0);
	CHECK(ioctl(fd, TIOCSCTTY, 0) == 0);
	return fd;
}

/* The tty_nr of /proc/<pid>/stat for the tty behind @fd. */
static inline long tty_nr_of(int fd)
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
/* The session fixture: own process group, subreaper, teardown         */
/* ------------------------------------------------------------------ */

/*
 * FIXTURE(session): the test leads a process group of its own and is a
 * child subreaper; the teardown kills and reaps whatever is left.
 */
#ifdef UTIL_FIXTURE_SESSION
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
#endif /* UTIL_FIXTURE_SESSION */

/* ------------------------------------------------------------------ */
/* PID namespaces: processes, clone3() set_tid                         */
/* ------------------------------------------------------------------ */

/*
 * Tests of FIXTURE(pid) that need a quiet, predictable number space run
 * as the init of a new PID namespace (unshare(CLONE_NEWPID) + fork()):
 * there every number the test sees is one it allocated itself.  The
 * namespace's tasks run on one CPU: with per-CPU windows of numbers, forks
 * follow one cursor's order on one CPU only, as they do on 6.12 (where a
 * fork on another CPU in between takes the next number).
 *
 * pid_max is global in 6.12, so it bounds every namespace, the initial one
 * included; tests that lower it start a guard process that puts the
 * original pid_max and threads-max back when the test ends, even if the
 * test is killed (the guard gets SIGTERM as its parent-death signal), and
 * the fixture teardown restores them too.
 *
 * Checks inside helper processes use CHECK*(), which print what failed and
 * exit non-zero; the test body asserts that the helper exited with 0.
 * Helpers die with their parent (PR_SET_PDEATHSIG; a namespace dies with
 * its init), every wait is bounded, and the fixture teardown (a child
 * subreaper) kills and reaps whatever is left.
 *
 * All tests of FIXTURE(pid) need root; they skip without it.
 */

#ifndef __NR_clone3
#define __NR_clone3	435
#endif

#define RESERVED_PIDS	300	/* include/linux/pid.h */
#define LOW_PID_MAX	1000	/* pid_max for the tests that wrap */
#define PID_TIMEOUT_MS	10000	/* bound for a single wait */
#define NS_TIMEOUT_S	150	/* bound for a whole namespace scenario */
#define PID_CHILD_ALARM	300	/* helpers get SIGALRM after this (s) */

#define PID_MAX		"/proc/sys/kernel/pid_max"
#define THREADS_MAX	"/proc/sys/kernel/threads-max"

/*
 * The number right after the first @key in the file @path (a /proc file
 * that fits in 4 KiB), or @fail if the file or the key is not there.
 */
static inline long proc_number_after(const char *path, const char *key,
				     long fail)
{
	char buf[4096], *p;

	if (read_text(path, buf, sizeof(buf)) <= 0)
		return fail;
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : fail;
}

/*
 * clone3() with @n set_tid entries, innermost namespace first, like
 * fork() otherwise: the child's pid in the caller's namespace, 0 in the
 * child, or a negative errno.  Only for single-threaded callers.
 */
static inline pid_t clone3_tids(const pid_t *tid, size_t n, __u64 flags,
				int *pidfd)
{
	struct clone_args args;
	long ret;

	memset(&args, 0, sizeof(args));
	args.flags = flags;
	args.exit_signal = SIGCHLD;
	args.set_tid = (uintptr_t)tid;
	args.set_tid_size = n;
	args.pidfd = (uintptr_t)pidfd;
	ret = syscall(__NR_clone3, &args, sizeof(args));
	return ret < 0 ? -errno : ret;
}

static inline void block_sigchld(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/*
 * Bounded waitpid(): the exit status, 128 + the signal, or -1 (the child
 * is then SIGKILLed and reaped).  SIGCHLD stays blocked in the caller so
 * that sigtimedwait() can sleep until a child changes state.
 */
static inline int wait_exit_ms(pid_t pid, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	sigset_t set;
	int status;

	block_sigchld();
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		long long left;
		struct timespec ts;

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
						   128 + WTERMSIG(status);
		if (r < 0 && errno != EINTR)
			return -1;
		left = deadline - now_ms();
		if (left <= 0)
			break;
		if (left > 100)
			left = 100;
		ts.tv_sec = 0;
		ts.tv_nsec = left * 1000000L;
		sigtimedwait(&set, NULL, &ts);
	}
	fprintf(stderr, "# pid %d: child %d still running after %d ms\n",
		getpid(), pid, timeout_ms);
	kill(pid, SIGKILL);
	deadline = now_ms() + 2000;
	while (waitpid(pid, &status, WNOHANG) == 0 && now_ms() < deadline)
		usleep(1000);
	return -1;
}

/* Fork a child that exits at once and reap it: its pid or -errno. */
static inline pid_t fork_reap(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -errno;
	if (wait_exit_ms(pid, PID_TIMEOUT_MS) != 0)
		return -ECHILD;
	return pid;
}

/* clone3() with set_tid a child that exits at once, reaped: pid or -errno */
static inline pid_t try_tids(const pid_t *tid, size_t n, __u64 flags)
{
	pid_t pid = clone3_tids(tid, n, flags, NULL);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return pid;
	if (wait_exit_ms(pid, PID_TIMEOUT_MS) != 0)
		return -ECHILD;
	return pid;
}

static inline pid_t try_tid(pid_t tid)
{
	return try_tids(&tid, 1, 0);
}

/* Set in every helper: die with the parent; check it is still there. */
static inline void die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(99);
	alarm(PID_CHILD_ALARM);
}

/* A child that pauses until killed: its pid or -errno. */
static inline pid_t spawn_pauser(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		die_with_parent(parent);
		for (;;)
			pause();
	}
	return pid < 0 ? -errno : pid;
}

static inline void ns_init_alarm(int sig)
{
	static const char msg[] = "# namespace init: timed out\n";

	write(2, msg, sizeof(msg) - 1);
	_exit(2);
}

#define NS_UNSHARE_FAILED	91
/* A scenario's exit code for "needs two online CPUs". */
#define NS_ONE_CPU		94

/* Run on @cpu only; false when it cannot (offline, not allowed). */
static inline bool run_on_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

/*
 * Run @fn(@arg) as the init (pid 1) of a new PID namespace, in a child
 * of a child of the caller; returns what @fn returned, 128 + a signal, or
 * -1 on timeout.  When the init exits, the kernel kills everything else
 * in the namespace.  Its tasks run on whatever CPUs the scheduler
 * picks: a task forking alone gets the numbers of one cursor anywhere.
 */
static inline int run_in_pidns(int (*fn)(void *), void *arg, int timeout_s)
{
	pid_t test = getpid();
	pid_t p = fork();

	if (p < 0)
		return -1;
	if (p == 0) {
		pid_t init;

		die_with_parent(test);
		if (unshare(CLONE_NEWPID)) {
			fprintf(stderr, "# unshare(CLONE_NEWPID): %s\n",
				strerror(errno));
			_exit(NS_UNSHARE_FAILED);
		}
		init = fork();
		if (init < 0)
			_exit(92);
		if (init == 0) {
			/*
			 * The parent is outside the namespace, so getppid()
			 * is 0 here.  An init ignores SIGALRM with SIG_DFL,
			 * hence the handler.
			 */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL))
				_exit(93);
			signal(SIGALRM, ns_init_alarm);
			alarm(timeout_s);
			_exit(fn(arg));
		}
		_exit(wait_exit_ms(init, timeout_s * 1000 + 2000) & 0xff);
	}
	return wait_exit_ms(p, timeout_s * 1000 + 5000);
}

/*
 * run_in_pidns() in a test: skip the test (and return false) if there is
 * no new PID namespace or if @fn (called @name) found one CPU only where
 * it needs two; fail the test if @fn did not return 0.
 */
static inline bool test_in_pidns(struct __test_metadata *_metadata,
				 int (*fn)(void *), const char *name,
				 void *arg, int timeout_s)
{
	int rc = run_in_pidns(fn, arg, timeout_s);

	if (rc == NS_UNSHARE_FAILED)
		SKIP(return false, "no new PID namespace (CONFIG_PID_NS?)");
	if (rc == NS_ONE_CPU)
		SKIP(return false, "needs two online CPUs");
	ASSERT_EQ(0, rc)
		TH_LOG("%s in a new PID namespace failed (status %d, see above)",
		       name, rc);
	return true;
}

/* In a test body: test_in_pidns() with the name of @fn. */
#define RUN_IN_PIDNS(fn, arg, timeout_s)				\
	test_in_pidns(_metadata, (fn), #fn, (arg), (timeout_s))

static inline void *nop_thread(void *arg)
{
	return arg;
}

static inline int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* ------------------------------------------------------------------ */
/* The pid fixture: sysctl guard, subreaper, clean teardown            */
/* ------------------------------------------------------------------ */

static inline void restore_sysctls(long pid_max, long threads_max)
{
	long v;

	if (read_long(PID_MAX, &v) == 0 && v != pid_max)
		write_long(PID_MAX, pid_max);
	if (read_long(THREADS_MAX, &v) == 0 && v != threads_max)
		write_long(THREADS_MAX, threads_max);
}

/*
 * A process that restores pid_max and threads-max when the test process
 * exits or is killed (its parent-death signal is SIGTERM), or on SIGTERM
 * from the teardown.  It sits in a process group of its own so that the
 * harness' timeout, which kills the test's group, does not take it along.
 */
static inline pid_t guard_start(long pid_max, long threads_max)
{
	pid_t parent = getpid(), pid;
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid == 0) {
		struct timespec ts = { PID_CHILD_ALARM * 3, 0 };

		setpgid(0, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 &&
		    getppid() == parent)
			sigtimedwait(&set, NULL, &ts);
		restore_sysctls(pid_max, threads_max);
		_exit(0);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

/*
 * FIXTURE(pid): needs root; the setup notes pid_max and threads-max,
 * becomes a child subreaper and starts the guard; the teardown stops the
 * guard, restores both and kills and reaps whatever is left.
 */
#ifdef UTIL_FIXTURE_PID
FIXTURE(pid) {
	long pid_max;
	long threads_max;
	pid_t guard;
};

FIXTURE_SETUP(pid)
{
	self->guard = -1;
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, read_long(PID_MAX, &self->pid_max));
	ASSERT_EQ(0, read_long(THREADS_MAX, &self->threads_max));
	ASSERT_EQ(0, prctl(PR_SET_PDEATHSIG, SIGKILL));
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_NE(SIG_ERR, signal(SIGPIPE, SIG_IGN));
	block_sigchld();
	self->guard = guard_start(self->pid_max, self->threads_max);
	ASSERT_LT(0, self->guard);
}

FIXTURE_TEARDOWN(pid)
{
	if (self->guard > 0) {
		kill(self->guard, SIGTERM);
		wait_exit_ms(self->guard, PID_TIMEOUT_MS);
	}
	restore_sysctls(self->pid_max, self->threads_max);
	reap_all(PID_TIMEOUT_MS);
}
#endif /* UTIL_FIXTURE_PID */

/* Set pid_max for this test; the guard and the teardown restore it. */
#define SET_PID_MAX(v) do {						\
	long __want = (v), __v;						\
	ASSERT_EQ(0, write_long(PID_MAX, __want));			\
	ASSERT_EQ(0, read_long(PID_MAX, &__v));				\
	ASSERT_EQ(__want, __v);						\
} while (0)

struct ns_ctx {
	long pid_max;
	long lo, hi;		/* fill_pid_space: expected range */
	pid_t outer[4];		/* free numbers of the initial namespace */
	pid_t test;		/* the test process, in the initial ns */
};

#endif /* SELFTESTS_PID_UTIL_H */
