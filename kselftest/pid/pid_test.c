// SPDX-License-Identifier: GPL-2.0
/*
 * PID allocation as userspace sees it.
 *
 * This file pins the syscall-level behaviour of Linux 6.12's PID allocator
 * (alloc_pid()/free_pid() on top of one IDR per PID namespace), so that a
 * replacement allocator can be checked against it:
 *   - the order of allocation: in an otherwise idle PID namespace every
 *     fork() gets the first free number after the last one handed out
 *     (idr_alloc_cyclic()), skipping numbers still in use by a task, a
 *     process group or a session, and wraps from pid_max - 1 to
 *     RESERVED_PIDS (300), never lower;
 *   - the limits of the pid_max sysctl;
 *   - exhaustion: fork() and pthread_create() fail with EAGAIN, a failed
 *     fork() leaks no number, forking works again once holders exit;
 *   - clone3() with set_tid: the exact number, EEXIST, EINVAL, EPERM,
 *     several namespace levels at once and the rollback of the inner
 *     levels when an outer one fails; a namespace without an init and
 *     one whose init has exited;
 *   - /proc/sys/kernel/ns_last_pid (needs CONFIG_CHECKPOINT_RESTORE);
 *   - /proc readdir while processes and threads come and go;
 *   - a pidfd never follows its number to a new process;
 *   - 10,000 live threads, 100,000 created in a sliding window.
 *
 * Tests that need a quiet, predictable number space run as the init of a
 * new PID namespace (unshare(CLONE_NEWPID) + fork()): there every number
 * the test sees is one it allocated itself.  pid_max is global in 6.12, so
 * it bounds every namespace, the initial one included; tests that lower
 * it start a guard process that puts the original pid_max and threads-max
 * back when the test ends, even if the test is killed (the guard gets
 * SIGTERM as its parent-death signal), and the fixture teardown restores
 * them too.
 *
 * Checks inside helper processes use CHECK*(), which print what failed and
 * exit non-zero; the test body asserts that the helper exited with 0.
 * Helpers die with their parent (PR_SET_PDEATHSIG; a namespace dies with
 * its init), every wait is bounded, and the fixture teardown (a child
 * subreaper) kills and reaps whatever is left.
 *
 * All tests need root; they skip without it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <linux/sched.h>	/* struct clone_args, CLONE_PIDFD */

#include "kselftest_harness.h"
#include "../lib/util.h"

#ifndef P_PIDFD
#define P_PIDFD		3
#endif
#ifndef __NR_clone3
#define __NR_clone3	435
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open	434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif

#define RESERVED_PIDS	300	/* include/linux/pid.h */
#define PID_MAX_LIMIT	(4 * 1024 * 1024)	/* 64-bit, !BASE_SMALL */
#define MAX_PID_NS_LEVEL 32
#define LOW_PID_MAX	1000	/* pid_max for the tests that wrap */
#define TIMEOUT_MS	10000	/* bound for a single wait */
#define NS_TIMEOUT_S	150	/* bound for a whole namespace scenario */
#define CHILD_ALARM	300	/* helpers get SIGALRM after this (s) */
#define UID_NOBODY	4242

#define PID_MAX		"/proc/sys/kernel/pid_max"
#define THREADS_MAX	"/proc/sys/kernel/threads-max"
#define NS_LAST_PID	"/proc/sys/kernel/ns_last_pid"

/* ------------------------------------------------------------------ */
/* Small utilities                                                     */
/* ------------------------------------------------------------------ */

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

/*
 * The number right after the first @key in the file @path (a /proc file
 * that fits in 4 KiB), or @fail if the file or the key is not there.
 */
static long proc_number_after(const char *path, const char *key, long fail)
{
	char buf[4096], *p;

	if (read_text(path, buf, sizeof(buf)) <= 0)
		return fail;
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : fail;
}

/* The "Pid:" line of /proc/self/fdinfo/@fd, or LONG_MIN. */
static long fdinfo_pid(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return proc_number_after(path, "\nPid:\t", LONG_MIN);
}

static int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return syscall(__NR_pidfd_open, pid, flags);
}

static int sys_pidfd_send_signal(int fd, int sig)
{
	return syscall(__NR_pidfd_send_signal, fd, sig, NULL, 0);
}

static int futex_wait_ms(int *addr, int val, int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	return syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, &ts,
		       NULL, 0);
}

static void futex_wake_all(int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/*
 * clone3() with @n set_tid entries, innermost namespace first, like
 * fork() otherwise: the child's pid in the caller's namespace, 0 in the
 * child, or a negative errno.  Only for single-threaded callers.
 */
static pid_t clone3_tids(const pid_t *tid, size_t n, __u64 flags, int *pidfd)
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

/* ------------------------------------------------------------------ */
/* Processes                                                           */
/* ------------------------------------------------------------------ */

static void block_sigchld(void)
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
static int wait_exit(pid_t pid, int timeout_ms)
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
static pid_t fork_reap(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -errno;
	if (wait_exit(pid, TIMEOUT_MS) != 0)
		return -ECHILD;
	return pid;
}

/* clone3() with set_tid a child that exits at once, reaped: pid or -errno */
static pid_t try_tids(const pid_t *tid, size_t n, __u64 flags)
{
	pid_t pid = clone3_tids(tid, n, flags, NULL);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return pid;
	if (wait_exit(pid, TIMEOUT_MS) != 0)
		return -ECHILD;
	return pid;
}

static pid_t try_tid(pid_t tid)
{
	return try_tids(&tid, 1, 0);
}

/* Set in every helper: die with the parent; check it is still there. */
static void die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(99);
	alarm(CHILD_ALARM);
}

/* A child that pauses until killed: its pid or -errno. */
static pid_t spawn_pauser(void)
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

/* In a namespace's init: SIGKILL every other process in it, reap all. */
static int reap_ns(void)
{
	long long deadline = now_ms() + TIMEOUT_MS;
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

static void ns_init_alarm(int sig)
{
	static const char msg[] = "# namespace init: timed out\n";

	write(2, msg, sizeof(msg) - 1);
	_exit(2);
}

#define NS_UNSHARE_FAILED	91
/* A scenario's exit code for "needs two online CPUs". */
#define NS_ONE_CPU		94

/* Run on @cpu only; false when it cannot (offline, not allowed). */
static bool run_on_cpu(int cpu)
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
 * in the namespace.  The namespace's tasks run on one CPU: PIDs are
 * handed out from per-CPU windows, in the order of one cursor only for
 * forks on one CPU, and the scenarios check the numbers they get.
 */
static int run_in_pidns(int (*fn)(void *), void *arg, int timeout_s)
{
	pid_t test = getpid();
	pid_t p = fork();

	if (p < 0)
		return -1;
	if (p == 0) {
		pid_t init;

		die_with_parent(test);
		if (sched_getcpu() >= 0)
			run_on_cpu(sched_getcpu());
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
		_exit(wait_exit(init, timeout_s * 1000 + 2000) & 0xff);
	}
	return wait_exit(p, timeout_s * 1000 + 5000);
}

#define RUN_IN_PIDNS(fn, arg, timeout_s) do {				\
	int __rc = run_in_pidns((fn), (arg), (timeout_s));		\
	if (__rc == NS_UNSHARE_FAILED)					\
		SKIP(return, "no new PID namespace (CONFIG_PID_NS?)");	\
	if (__rc == NS_ONE_CPU)						\
		SKIP(return, "needs two online CPUs");			\
	ASSERT_EQ(0, __rc) TH_LOG("%s in a new PID namespace failed "	\
				  "(status %d, see above)", #fn, __rc);	\
} while (0)

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
/* Signal recorders (for the pidfd tests)                              */
/* ------------------------------------------------------------------ */

#define NREC 4

struct shared {
	int ready[NREC];
	int usr1[NREC];
	int usr2[NREC];
};

static struct shared *sh;
static int rec_slot;

static void rec_handler(int sig)
{
	if (sig == SIGUSR1)
		__atomic_add_fetch(&sh->usr1[rec_slot], 1, __ATOMIC_SEQ_CST);
	else
		__atomic_add_fetch(&sh->usr2[rec_slot], 1, __ATOMIC_SEQ_CST);
}

/* A child (of fork() or clone3()) counts SIGUSR1/2 into sh slot @slot. */
static void __attribute__((noreturn)) recorder_main(pid_t parent, int slot)
{
	struct sigaction sa = { .sa_handler = rec_handler };
	sigset_t set;

	die_with_parent(parent);
	rec_slot = slot;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR2, &sa, NULL))
		_exit(98);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	__atomic_store_n(&sh->ready[slot], 1, __ATOMIC_SEQ_CST);
	for (;;)
		pause();
}

/* Bounded wait until *@p reaches @val. */
static bool wait_value(int *p, int val)
{
	long long deadline = now_ms() + TIMEOUT_MS;

	while (__atomic_load_n(p, __ATOMIC_SEQ_CST) < val) {
		if (now_ms() > deadline)
			return false;
		usleep(1000);
	}
	return true;
}

/*
 * Recorder @slot received exactly @usr1 SIGUSR1 and no SIGUSR2.  Another
 * SIGUSR1 is sent through @good_fd and waited for first: a SIGUSR2 sent
 * earlier (through a stale pidfd) would have been delivered by then.
 */
static void check_only_usr1(int slot, int good_fd, int usr1)
{
	CHECK_EQ(sys_pidfd_send_signal(good_fd, SIGUSR1), 0);
	CHECK(wait_value(&sh->usr1[slot], usr1 + 1));
	CHECK_EQ(sys_pidfd_send_signal(good_fd, SIGUSR1), 0);
	CHECK(wait_value(&sh->usr1[slot], usr1 + 2));
	CHECK_EQ(__atomic_load_n(&sh->usr2[slot], __ATOMIC_SEQ_CST), 0);
	CHECK_EQ(__atomic_load_n(&sh->usr1[slot], __ATOMIC_SEQ_CST), usr1 + 2);
}

/* ------------------------------------------------------------------ */
/* The fixture: sysctl guard, subreaper, clean teardown                */
/* ------------------------------------------------------------------ */

static void restore_sysctls(long pid_max, long threads_max)
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
static pid_t guard_start(long pid_max, long threads_max)
{
	pid_t parent = getpid(), pid;
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid == 0) {
		struct timespec ts = { CHILD_ALARM * 3, 0 };

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
		wait_exit(self->guard, TIMEOUT_MS);
	}
	restore_sysctls(self->pid_max, self->threads_max);
	reap_all(TIMEOUT_MS);
}

/* Set pid_max for this test; the guard and the teardown restore it. */
#define SET_PID_MAX(v) do {						\
	long __v;							\
	ASSERT_EQ(0, write_long(PID_MAX, (v)));				\
	ASSERT_EQ(0, read_long(PID_MAX, &__v));				\
	ASSERT_EQ((v), __v);						\
} while (0)

struct ns_ctx {
	long pid_max;
	long lo, hi;		/* fill_pid_space: expected range */
	pid_t outer[4];		/* free numbers of the initial namespace */
	pid_t test;		/* the test process, in the initial ns */
};

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
/* Case 1: wrap-around, and numbers held by groups and sessions        */
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
			alarm(CHILD_ALARM);
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
	if (l > 0 && read_full(fds[0], &m, sizeof(m), TIMEOUT_MS))
		m = -1;
	close(fds[0]);
	if (l < 0 || m < 0 || wait_exit(l, TIMEOUT_MS) != 0)
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
			fprintf(stderr, "# %d, still the %s of a live process, "
				"was handed out as a pid\n", p,
				p == l1 ? "process group id" : "session id");
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
	CHECK_EQ(wait_exit(m1, TIMEOUT_MS), 128 + SIGKILL);
	CHECK_ERR(kill(-l1, 0), ESRCH);
	CHECK_EQ(try_tid(l1), l1);
	CHECK_EQ(try_tid(l2), -EEXIST);
	CHECK_EQ(kill(m2, SIGKILL), 0);
	CHECK_EQ(wait_exit(m2, TIMEOUT_MS), 128 + SIGKILL);
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
/* Case 2: exhaustion                                                  */
/* ------------------------------------------------------------------ */

static void *nop_thread(void *arg)
{
	return arg;
}

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

/* ------------------------------------------------------------------ */
/* Case 3: clone3() set_tid                                            */
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
	CHECK_EQ(wait_exit(p, TIMEOUT_MS), 0);
	/* a freed number can be had again at once */
	CHECK_EQ(kill(held, SIGKILL), 0);
	CHECK_EQ(wait_exit(held, TIMEOUT_MS), 128 + SIGKILL);
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
	CHECK_EQ(wait_exit(p, TIMEOUT_MS), 0);
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
	CHECK_EQ(wait_exit(held, TIMEOUT_MS), 128 + SIGKILL);

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
	ASSERT_EQ(0, wait_exit(p, TIMEOUT_MS));
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
	CHECK_EQ(wait_exit(p, TIMEOUT_MS), 0);
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
	CHECK_EQ(wait_exit(init, TIMEOUT_MS), 128 + SIGKILL);
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
	ASSERT_EQ(0, wait_exit(p, NS_TIMEOUT_S * 1000));
}

/* ------------------------------------------------------------------ */
/* Case 4: ns_last_pid                                                 */
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
	CHECK_EQ(wait_exit(p, TIMEOUT_MS), 0);

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
		_exit(wait_exit(init, TIMEOUT_MS));
	}
	CHECK_EQ(p, before + 1);
	CHECK_EQ(wait_exit(p, TIMEOUT_MS), 0);
	CHECK_EQ(last_pid(), before + 3);
	CHECK_EQ(kill(h, SIGKILL), 0);
	CHECK_EQ(wait_exit(h, TIMEOUT_MS), 128 + SIGKILL);
	return 0;
}

/*
 * ns_last_pid with forks on two CPUs, each of which hands out numbers
 * from a window of its own: after a write of N - 1 the next fork gets N
 * on either CPU (CRIU's restore), and a read gives a number that was
 * handed out, never one that was not.
 */
static int ns_last_pid_cpus_scenario(void *arg)
{
	int cpu[2] = { -1, -1 }, i, n = 0;
	pid_t a, b, l;

	CHECK_EQ(getpid(), 1);
	/* Two CPUs this task may run on (run_in_pidns() pinned it to one). */
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (run_on_cpu(i))
			cpu[n++] = i;
	if (n < 2)
		return NS_ONE_CPU;
	/* Each CPU opens windows. */
	for (i = 0; i < 200; i++) {
		CHECK(run_on_cpu(cpu[i % 2]));
		CHECK(fork_reap() > 1);
	}
	for (i = 0; i < 4; i++) {
		long want = 5000 + 1000 * i;

		CHECK_EQ(write_long(NS_LAST_PID, want - 1), 0);
		CHECK(run_on_cpu(cpu[i % 2]));
		CHECK_EQ(fork_reap(), want);
		CHECK_EQ(last_pid(), want);
		CHECK_EQ(fork_reap(), want + 1);
		CHECK(run_on_cpu(cpu[(i + 1) % 2]));
		/* The other CPU's window ended with the write: after it. */
		CHECK(fork_reap() > want + 1);
	}
	CHECK(run_on_cpu(cpu[0]));
	a = fork_reap();
	CHECK(run_on_cpu(cpu[1]));
	b = fork_reap();
	l = last_pid();
	CHECK(l == a || l == b);
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

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* ------------------------------------------------------------------ */
/* Case 5: /proc readdir under churn                                   */
/* ------------------------------------------------------------------ */

#define NSLEEPERS	48
#define NMT_THREADS	3
#define MAX_ENTRIES	65536

struct churn {
	long forks;
	long threads;
};

struct linux_dirent64 {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

/*
 * One pass over /proc with a small getdents64 buffer, so that the walk
 * resumes from its position (next_tgid(): find_ge_pid()) many times while
 * the churners run.  The numeric entries, in the order returned; -1 if
 * /proc cannot be read.
 */
static int proc_pass(int *pids, int max)
{
	char buf[256];
	int fd, n = 0;

	fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		long len = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		long off;

		if (len < 0) {
			n = -1;
			break;
		}
		if (len == 0)
			break;
		for (off = 0; off < len; ) {
			struct linux_dirent64 *d = (void *)(buf + off);
			int v = atoi(d->d_name);

			if (v > 0 && n < max)
				pids[n++] = v;
			off += d->d_reclen;
		}
	}
	close(fd);
	return n;
}

static void __attribute__((noreturn)) churner(struct churn *ch, bool threads)
{
	pthread_attr_t attr;

	die_with_parent(getppid());
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 16 * 1024);
	for (;;) {
		if (threads) {
			pthread_t t;

			if (pthread_create(&t, &attr, nop_thread, NULL) == 0)
				pthread_join(t, NULL);
			__atomic_add_fetch(&ch->threads, 1, __ATOMIC_RELAXED);
		} else {
			if (fork_reap() > 0)
				__atomic_add_fetch(&ch->forks, 1,
						   __ATOMIC_RELAXED);
		}
	}
}

/*
 * /proc lists every live process in every readdir pass while other
 * processes and threads are created and reaped around it: 48 sleepers
 * spread over the number space, the test itself and a multi-threaded
 * process are in every pass; entries come in increasing order without
 * repeats (proc_pid_readdir() walks pids in order); thread ids are not
 * listed, but /proc/<tid> can be looked up.
 */
TEST_F_TIMEOUT(pid, proc_readdir_under_churn, 180)
{
	pid_t sleepers[NSLEEPERS], mt, tids[NMT_THREADS + 1], c1, c2;
	struct churn *ch;
	long forks0, threads0, passes = 0;
	long long start, deadline;
	int *pids, i, j, n = 0, ntids = 0, missing, listed_tid;
	char path[64];

	ch = mmap(NULL, sizeof(*ch), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ch);
	pids = calloc(MAX_ENTRIES, sizeof(*pids));
	ASSERT_NE(NULL, pids);

	for (i = 0; i < NSLEEPERS; i++) {
		sleepers[i] = spawn_pauser();
		ASSERT_LT(0, sleepers[i]);
		for (j = 0; j < 3; j++)
			ASSERT_LT(0, fork_reap());
	}
	mt = fork();
	ASSERT_LE(0, mt);
	if (mt == 0) {
		pthread_attr_t attr;
		pthread_t t;

		die_with_parent(getppid());
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 16 * 1024);
		for (i = 0; i < NMT_THREADS; i++)
			CHECK_EQ(pthread_create(&t, &attr, idle_thread, NULL),
				 0);
		for (;;)
			pause();
	}
	/* the threads' ids, from /proc/<mt>/task */
	snprintf(path, sizeof(path), "/proc/%d/task", mt);
	deadline = now_ms() + TIMEOUT_MS;
	while (ntids != NMT_THREADS + 1) {
		struct dirent *e;
		DIR *d;

		ASSERT_GT(deadline, now_ms()) TH_LOG("threads of %d", mt);
		usleep(1000);
		d = opendir(path);
		ASSERT_NE(NULL, d);
		ntids = 0;
		while ((e = readdir(d)))
			if (atoi(e->d_name) > 0 && ntids < NMT_THREADS + 1)
				tids[ntids++] = atoi(e->d_name);
		closedir(d);
	}

	c1 = fork();
	ASSERT_LE(0, c1);
	if (c1 == 0)
		churner(ch, false);
	c2 = fork();
	ASSERT_LE(0, c2);
	if (c2 == 0)
		churner(ch, true);
	deadline = now_ms() + TIMEOUT_MS;
	while (!__atomic_load_n(&ch->forks, __ATOMIC_RELAXED) ||
	       !__atomic_load_n(&ch->threads, __ATOMIC_RELAXED)) {
		ASSERT_GT(deadline, now_ms()) TH_LOG("churners do not start");
		usleep(1000);
	}

	forks0 = ch->forks;
	threads0 = ch->threads;
	start = now_ms();
	while (passes < 20 || now_ms() - start < 3000) {
		ASSERT_GT(start + 60000, now_ms()) TH_LOG("%ld passes", passes);
		n = proc_pass(pids, MAX_ENTRIES);
		ASSERT_LT(0, n);
		ASSERT_GT(MAX_ENTRIES, n);
		for (i = 1; i < n; i++)
			ASSERT_LT(pids[i - 1], pids[i])
				TH_LOG("pass %ld: entry %d after %d", passes,
				       pids[i], pids[i - 1]);
		/* sorted: look each one up by bisection */
#define LISTED(x) (bsearch(&(x), pids, n, sizeof(int), cmp_int) != NULL)
		missing = listed_tid = 0;
		for (i = 0; i < NSLEEPERS; i++)
			if (!LISTED(sleepers[i]))
				missing = sleepers[i];
		j = getpid();
		if (!LISTED(j))
			missing = j;
		if (!LISTED(mt))
			missing = mt;
		if (!LISTED(c1))
			missing = c1;
		if (!LISTED(c2))
			missing = c2;
		for (i = 0; i < ntids; i++)
			if (tids[i] != mt && LISTED(tids[i]))
				listed_tid = tids[i];
#undef LISTED
		ASSERT_EQ(0, missing)
			TH_LOG("pass %ld: live process %d not listed", passes,
			       missing);
		ASSERT_EQ(0, listed_tid)
			TH_LOG("pass %ld: thread %d listed", passes,
			       listed_tid);
		passes++;
	}
	TH_LOG("%ld passes of /proc (%d entries) in %lld ms, %ld forks and "
	       "%ld threads around them", passes, n, now_ms() - start,
	       ch->forks - forks0, ch->threads - threads0);
	ASSERT_LT(forks0 + 10, ch->forks) TH_LOG("the fork churner stalled");
	ASSERT_LT(threads0 + 10, ch->threads)
		TH_LOG("the thread churner stalled");

	/* threads are not listed but can be looked up */
	for (i = 0; i < ntids; i++) {
		long tgid;
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d/stat", tids[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
		snprintf(path, sizeof(path), "/proc/%d/status", tids[i]);
		tgid = 0;
		{
			char buf[2048], *p;
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			ssize_t len;

			ASSERT_LE(0, fd);
			len = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			ASSERT_LT(0, len);
			buf[len] = '\0';
			p = strstr(buf, "\nTgid:\t");
			ASSERT_NE(NULL, p);
			tgid = strtol(p + 7, NULL, 10);
		}
		ASSERT_EQ(mt, tgid);
	}
	munmap(ch, sizeof(*ch));
	free(pids);
}

/* ------------------------------------------------------------------ */
/* Case 6: pidfds and reused numbers                                   */
/* ------------------------------------------------------------------ */

static short poll_once(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) < 0)
		return -1;
	return pfd.revents;
}

/* Checks on the pidfd of a process that has exited and been reaped. */
static void check_stale_pidfd(int fd)
{
	siginfo_t si;

	CHECK_ERR(sys_pidfd_send_signal(fd, 0), ESRCH);
	CHECK_ERR(sys_pidfd_send_signal(fd, SIGUSR2), ESRCH);
	CHECK_ERR(sys_pidfd_send_signal(fd, SIGKILL), ESRCH);
	CHECK_ERR(waitid(P_PIDFD, fd, &si, WEXITED | WNOHANG), ECHILD);
	CHECK_EQ(poll_once(fd, 0), POLLIN | POLLHUP);
	CHECK_EQ(fdinfo_pid(fd), -1);
}

static pid_t spawn_recorder(int slot)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0)
		recorder_main(parent, slot);
	if (pid < 0 || !wait_value(&sh->ready[slot], 1))
		return -1;
	return pid;
}

/* SIGKILL @pid through @kill_fd; waitid() on @wait_fd must report it. */
static void check_pidfd_kill(int kill_fd, int wait_fd, pid_t pid)
{
	siginfo_t si;

	CHECK_EQ(sys_pidfd_send_signal(kill_fd, SIGKILL), 0);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(waitid(P_PIDFD, wait_fd, &si, WEXITED), 0);
	CHECK_EQ(si.si_pid, pid);
	CHECK_EQ(si.si_code, CLD_KILLED);
}

static int pidfd_wrap_scenario(void *arg)
{
	const struct ns_ctx *c = arg;
	siginfo_t si;
	pid_t a, b, p;
	int fd, fd2;

	CHECK_EQ(getpid(), 1);
	for (p = 2; p < RESERVED_PIDS; p++)
		CHECK_EQ(fork_reap(), p);
	a = spawn_recorder(0);
	CHECK_EQ(a, RESERVED_PIDS);
	fd = sys_pidfd_open(a, 0);
	CHECK(fd >= 0);
	CHECK_EQ(sys_pidfd_send_signal(fd, SIGUSR1), 0);
	CHECK(wait_value(&sh->usr1[0], 1));
	CHECK(fdinfo_pid(fd) > 0);

	/* a zombie keeps its number: signals to it still "succeed" */
	CHECK_EQ(sys_pidfd_send_signal(fd, SIGKILL), 0);
	CHECK_EQ(poll_once(fd, TIMEOUT_MS), POLLIN);
	CHECK_EQ(sys_pidfd_send_signal(fd, 0), 0);
	CHECK_EQ(kill(a, 0), 0);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(waitid(P_PIDFD, fd, &si, WEXITED), 0);
	CHECK_EQ(si.si_pid, a);
	CHECK_EQ(si.si_code, CLD_KILLED);
	CHECK_EQ(si.si_status, SIGKILL);
	/* reaped */
	check_stale_pidfd(fd);

	/* cycle through the number space until a is handed out again */
	for (p = a + 1; p < c->pid_max; p++)
		CHECK_EQ(fork_reap(), p);
	b = spawn_recorder(1);
	CHECK_EQ(b, a);

	check_stale_pidfd(fd);
	fd2 = sys_pidfd_open(b, 0);
	CHECK(fd2 >= 0);
	CHECK(fdinfo_pid(fd2) > 0);
	check_only_usr1(1, fd2, 0);
	CHECK_EQ(kill(b, 0), 0);
	CHECK_EQ(waitpid(b, NULL, WNOHANG), 0);

	check_pidfd_kill(fd2, fd2, b);
	check_stale_pidfd(fd);
	check_stale_pidfd(fd2);
	return 0;
}

/*
 * A pidfd_open() pidfd of a process that exited stays with that process
 * when its number is reused by a natural wrap (pid_max 1000, new
 * namespace): pidfd_send_signal() gives ESRCH and signals nobody,
 * waitid(P_PIDFD) gives ECHILD, poll() POLLIN|POLLHUP, fdinfo Pid -1.
 * Before it is reaped, the zombie still answers to its pidfd.
 */
TEST_F_TIMEOUT(pid, pidfd_open_no_reuse, 240)
{
	struct ns_ctx c = { .pid_max = LOW_PID_MAX };

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	SET_PID_MAX(LOW_PID_MAX);
	RUN_IN_PIDNS(pidfd_wrap_scenario, &c, NS_TIMEOUT_S);
	munmap(sh, sizeof(*sh));
}

static int clone_pidfd_scenario(void *arg)
{
	struct stat st_old, st_new, st_open;
	siginfo_t si;
	int fd = -1, fd2 = -1, fd3;
	pid_t a, b;

	CHECK_EQ(getpid(), 1);
	a = clone3_tids(NULL, 0, CLONE_PIDFD, &fd);
	if (a == 0)
		_exit(7);
	CHECK(a > 0);
	CHECK(fd >= 0);
	CHECK(poll_once(fd, TIMEOUT_MS) & POLLIN);
	/* WNOWAIT: see it, leave it a zombie, reap it the classic way */
	memset(&si, 0, sizeof(si));
	CHECK_EQ(waitid(P_PIDFD, fd, &si, WEXITED | WNOWAIT), 0);
	CHECK_EQ(si.si_pid, a);
	CHECK_EQ(si.si_code, CLD_EXITED);
	CHECK_EQ(si.si_status, 7);
	CHECK_EQ(sys_pidfd_send_signal(fd, 0), 0);
	CHECK_EQ(wait_exit(a, TIMEOUT_MS), 7);
	check_stale_pidfd(fd);
	CHECK_EQ(fstat(fd, &st_old), 0);

	/* the same number again, through set_tid */
	b = clone3_tids(&a, 1, CLONE_PIDFD, &fd2);
	if (b == 0)
		recorder_main(1, 2);
	CHECK_EQ(b, a);
	CHECK(fd2 >= 0);
	CHECK(wait_value(&sh->ready[2], 1));
	check_stale_pidfd(fd);
	check_only_usr1(2, fd2, 0);
	CHECK_EQ(kill(b, 0), 0);

	/*
	 * pidfs gives every struct pid its own inode: the old pidfd's is
	 * not the new process', and pidfd_open() of the number now finds
	 * the new process.
	 */
	fd3 = sys_pidfd_open(a, 0);
	CHECK(fd3 >= 0);
	CHECK_EQ(fstat(fd2, &st_new), 0);
	CHECK_EQ(fstat(fd3, &st_open), 0);
	CHECK(st_old.st_ino != st_new.st_ino);
	CHECK_EQ(st_open.st_ino, st_new.st_ino);
	CHECK_EQ(fdinfo_pid(fd3), fdinfo_pid(fd2));

	check_pidfd_kill(fd3, fd2, b);
	check_stale_pidfd(fd2);
	return 0;
}

/*
 * The same for a CLONE_PIDFD pidfd whose number is reused through
 * clone3(set_tid); the pidfds of the two processes have different pidfs
 * inodes, and pidfd_open() of the number gets the new process'.
 */
TEST_F(pid, clone_pidfd_no_reuse)
{
	struct ns_ctx c = { .pid_max = self->pid_max };

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	RUN_IN_PIDNS(clone_pidfd_scenario, &c, NS_TIMEOUT_S);
	munmap(sh, sizeof(*sh));
}

/* ------------------------------------------------------------------ */
/* Case 7: many threads                                                */
/* ------------------------------------------------------------------ */

#define THREAD_STACK	(16 * 1024)
/*
 * What one live thread costs, generously: its 16 KiB stack and guard
 * page, a 16 KiB kernel stack, task_struct and the rest.
 */
#define THREAD_COST_KB	64

struct slot {
	int tid;		/* written by the thread */
	int stop;		/* set by the test */
};

static int go;

/* Report the tid, then wait (bounded) until told to exit. */
static void *held_thread(void *arg)
{
	struct slot *s = arg;
	int *stop = s->stop >= 0 ? &s->stop : &go;
	int i;

	__atomic_store_n(&s->tid, gettid(), __ATOMIC_SEQ_CST);
	futex_wake_all(&s->tid);
	for (i = 0; i < CHILD_ALARM; i++) {
		if (__atomic_load_n(stop, __ATOMIC_SEQ_CST) > 0)
			break;
		futex_wait_ms(stop, 0, 1000);
	}
	return NULL;
}

static bool wait_tid(struct slot *s)
{
	long long deadline = now_ms() + TIMEOUT_MS;

	while (!__atomic_load_n(&s->tid, __ATOMIC_SEQ_CST)) {
		if (now_ms() > deadline)
			return false;
		futex_wait_ms(&s->tid, 0, 100);
	}
	return true;
}

/* Raise threads-max/pid_max to fit @live more tasks; false: no memory. */
static bool make_room(struct __test_metadata *_metadata, long live,
		      long *pid_max)
{
	/* tasks in the system: the 4th field of /proc/loadavg, "1/234" */
	long tasks = proc_number_after("/proc/loadavg", "/", -1);
	long avail = proc_number_after("/proc/meminfo", "MemAvailable:", -1);
	long threads_max;

	if (avail < 0 || tasks < 0)
		return false;
	if (avail < live * THREAD_COST_KB + 128 * 1024) {
		TH_LOG("MemAvailable %ld kB, %ld threads need about %ld kB",
		       avail, live, live * THREAD_COST_KB + 128 * 1024);
		return false;
	}
	if (read_long(THREADS_MAX, &threads_max) ||
	    read_long(PID_MAX, pid_max))
		return false;
	if (threads_max < tasks + live + 256) {
		TH_LOG("raising threads-max from %ld", threads_max);
		if (write_long(THREADS_MAX, tasks + live + 256))
			return false;
	}
	if (*pid_max < tasks + live + 4096) {
		TH_LOG("raising pid_max from %ld", *pid_max);
		*pid_max = tasks + live + 4096;
		if (write_long(PID_MAX, *pid_max))
			return false;
	}
	return true;
}

/* How many threads /proc/self/task lists. */
static int count_tasks(void)
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir("/proc/self/task");
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (atoi(e->d_name) > 0)
			n++;
	closedir(d);
	return n;
}

#define N10K	10000

/*
 * 10,000 threads alive at once, all created by one process and then
 * joined.  What it proves: 10,000 simultaneous allocations give 10,000
 * distinct ids, all in [1, pid_max); each can be looked up while the
 * thread lives (tgkill(sig 0), /proc/self/task lists all of them), and
 * after the joins every one of them is gone (ESRCH) and the process is
 * back to one task.
 */
TEST_F_TIMEOUT(pid, threads_10k, 300)
{
	struct slot *slots;
	pthread_t *th;
	pthread_attr_t attr;
	int *sorted, i, tasks, bad;
	long pid_max;
	long long start = now_ms(), deadline;

	if (!make_room(_metadata, N10K, &pid_max))
		SKIP(return, "not enough memory for %d threads", N10K);
	slots = calloc(N10K, sizeof(*slots));
	th = calloc(N10K, sizeof(*th));
	sorted = calloc(N10K, sizeof(*sorted));
	ASSERT_TRUE(slots && th && sorted);
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, THREAD_STACK));
	go = 0;

	for (i = 0; i < N10K; i++) {
		slots[i].stop = -1;	/* wait on the global go */
		ASSERT_EQ(0, pthread_create(&th[i], &attr, held_thread,
					    &slots[i]))
			TH_LOG("thread %d of %d", i, N10K);
	}
	for (i = 0; i < N10K && wait_tid(&slots[i]); i++)
		sorted[i] = slots[i].tid;
	ASSERT_EQ(N10K, i) TH_LOG("thread %d did not start", i);
	qsort(sorted, N10K, sizeof(*sorted), cmp_int);
	ASSERT_LT(0, sorted[0]);
	ASSERT_GT(pid_max, sorted[N10K - 1]);
	bad = 0;
	for (i = 1; i < N10K; i++)
		if (sorted[i - 1] == sorted[i])
			bad = sorted[i];
	ASSERT_EQ(0, bad) TH_LOG("two live threads have tid %d", bad);
	for (i = 0; i < N10K; i++)
		if (syscall(SYS_tgkill, getpid(), sorted[i], 0))
			bad = sorted[i];
	ASSERT_EQ(0, bad) TH_LOG("tgkill(tid %d): %s", bad, strerror(errno));
	ASSERT_EQ(N10K + 1, count_tasks());
	TH_LOG("%d threads alive after %lld ms, tids %d..%d", N10K,
	       now_ms() - start, sorted[0], sorted[N10K - 1]);

	__atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
	futex_wake_all(&go);
	for (i = 0; i < N10K; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	/* a joined thread may still be on its way out of the kernel */
	deadline = now_ms() + TIMEOUT_MS;
	while ((tasks = count_tasks()) != 1 && now_ms() < deadline)
		usleep(10000);
	ASSERT_EQ(1, tasks);
	for (i = 0; i < N10K; i++)
		if (syscall(SYS_tgkill, getpid(), sorted[i], 0) != -1 ||
		    errno != ESRCH)
			bad = sorted[i];
	ASSERT_EQ(0, bad) TH_LOG("tid %d still there", bad);
	TH_LOG("done in %lld ms", now_ms() - start);
	free(slots);
	free(th);
	free(sorted);
}

#define N100K	100000
#define WINDOW	4096

/*
 * 100,000 threads created and joined with WINDOW of them alive at any
 * time: the oldest is stopped and joined before the next is created.
 * What it proves: with 100,000 allocations the default pid space wraps
 * several times under a standing population of WINDOW live ids; no id is
 * ever given to two live threads, every id is below pid_max and none is
 * below RESERVED_PIDS once the space has wrapped, and the ids come in
 * cyclic order (a wrap is a descent, and there are about as many as
 * 100,000 / (pid_max - RESERVED_PIDS), not more: numbers are not reused
 * lowest-first).
 */
TEST_F_TIMEOUT(pid, threads_100k, 400)
{
	struct slot *slots;
	pthread_t *th;
	pthread_attr_t attr;
	unsigned char *live;
	long pid_max, descents = 0, expect;
	long long start = now_ms();
	int i, prev = 0;
	bool wrapped = false;

	if (!make_room(_metadata, WINDOW, &pid_max))
		SKIP(return, "not enough memory for %d threads", WINDOW);
	slots = calloc(WINDOW, sizeof(*slots));
	th = calloc(WINDOW, sizeof(*th));
	live = calloc(pid_max, 1);
	ASSERT_TRUE(slots && th && live);
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, THREAD_STACK));

	for (i = 0; i < N100K; i++) {
		struct slot *s = &slots[i % WINDOW];
		int tid;

		if (i >= WINDOW) {
			/* retire the oldest: it is no longer live after this */
			live[s->tid] = 0;
			__atomic_store_n(&s->stop, 1, __ATOMIC_SEQ_CST);
			futex_wake_all(&s->stop);
			ASSERT_EQ(0, pthread_join(th[i % WINDOW], NULL));
		}
		s->tid = 0;
		s->stop = 0;
		ASSERT_EQ(0, pthread_create(&th[i % WINDOW], &attr,
					    held_thread, s))
			TH_LOG("thread %d", i);
		ASSERT_TRUE(wait_tid(s)) TH_LOG("thread %d", i);
		tid = s->tid;
		ASSERT_LT(0, tid);
		ASSERT_GT(pid_max, tid);
		ASSERT_EQ(0, live[tid])
			TH_LOG("thread %d got tid %d, which is live", i, tid);
		live[tid] = 1;
		/*
		 * A wrap is a drop of more than half the space: with per-CPU
		 * windows, threads made on two CPUs also step back a little.
		 */
		if (prev - tid > (pid_max - RESERVED_PIDS) / 2) {
			descents++;
			wrapped = true;
		}
		if (wrapped)
			ASSERT_LE(RESERVED_PIDS, tid)
				TH_LOG("thread %d: tid %d after a wrap", i, tid);
		prev = tid;
	}
	for (i = 0; i < WINDOW; i++) {
		__atomic_store_n(&slots[i].stop, 1, __ATOMIC_SEQ_CST);
		futex_wake_all(&slots[i].stop);
	}
	for (i = 0; i < WINDOW; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	expect = N100K / (pid_max - RESERVED_PIDS);
	TH_LOG("%d threads (%d live at a time) in %lld ms, pid_max %ld, "
	       "%ld wraps", N100K, WINDOW, now_ms() - start, pid_max,
	       descents);
	ASSERT_LE(expect > 0 ? expect - 1 : 0, descents);
	ASSERT_GE(2 * expect + 2, descents);
	free(slots);
	free(th);
	free(live);
}

/* ------------------------------------------------------------------ */
/* Memory accounting                                                   */
/* ------------------------------------------------------------------ */

#define CGROUP_DIR	"/tmp/pidmap-cgroup"
#define CGROUP_TEST	CGROUP_DIR "/pid_test"

/* A field of @cg's memory.stat, or -1. */
static long memcg_stat(const char *cg, const char *key)
{
	char path[256], buf[8192], *p;
	size_t klen = strlen(key);

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtol(p + klen + 1, NULL, 10);
	return -1;
}

/* memory.stat is flushed every 2 s: let pending updates land first. */
static long memcg_slab(const char *cg)
{
	sleep(3);
	return memcg_stat(cg, "slab_unreclaimable");
}

/*
 * In a child moved into @cg: a new PID namespace (its init forked first),
 * then @n processes made with clone3() set_tid @tid[i] in it. Stores in
 * *@delta how much @cg's unreclaimable slab grew while they all lived.
 */
static int charge_run(const char *cg, const pid_t *tid, int n, long *delta)
{
	pid_t c = fork(), init;
	char path[256];
	int i;

	if (c < 0)
		return -errno;
	if (c == 0) {
		long before, after;

		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		CHECK(write_long(path, 0) == 0);
		before = memcg_slab(cg);
		CHECK(before >= 0);
		CHECK(unshare(CLONE_NEWPID) == 0);
		init = fork();
		CHECK(init >= 0);
		if (init == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
		for (i = 0; i < n; i++) {
			pid_t p = clone3_tids(&tid[i], 1, 0, NULL);

			if (p == 0) {
				for (;;)
					pause();
			}
			CHECK(p > 0);
		}
		after = memcg_slab(cg);
		CHECK(after >= 0);
		*delta = after - before;
		/* Killing init kills the namespace: reap all of it. */
		kill(init, SIGKILL);
		while (wait(NULL) > 0)
			;
		_exit(0);
	}
	if (wait_exit(c, 60 * 1000) != 0)
		return -1;
	return 0;
}

/*
 * The bitmap pages of a PID namespace live as long as the namespace and
 * are charged to the memory cgroup of the task that made them needed:
 * without that, clone3() set_tid in a user + PID namespace pins a page
 * per PAGE_SIZE * 8 numbers outside the caller's cgroup. Two runs with
 * the same number of processes, one whose numbers share a bitmap page and
 * one with a number in each page: the second's slab grows by the pages.
 */
TEST_F_TIMEOUT(pid, bitmap_pages_charged, 120)
{
	long page = sysconf(_SC_PAGESIZE), bits = page * 8, pid_max = 4194304;
	long *delta, want;
	pid_t *same, *spread;
	int i, n, ret;

	if (write_long(PID_MAX, pid_max))
		SKIP(return, "pid_max cannot be %ld (32-bit: one bitmap page)", pid_max);
	n = pid_max / bits - 1;
	if (n < 4)
		SKIP(return, "%ld numbers are fewer than 5 bitmap pages", pid_max);
	mkdir(CGROUP_DIR, 0755);
	if (mount("none", CGROUP_DIR, "cgroup2", 0, NULL) && errno != EBUSY)
		SKIP(return, "no cgroup2 (CONFIG_CGROUPS): %s", strerror(errno));
	ret = write_text(CGROUP_DIR "/cgroup.subtree_control", "+memory");
	if (ret) {
		umount(CGROUP_DIR);
		SKIP(return, "no memory controller (CONFIG_MEMCG): %s", strerror(-ret));
	}
	ASSERT_TRUE(mkdir(CGROUP_TEST, 0755) == 0 || errno == EEXIST);

	delta = mmap(NULL, 2 * sizeof(long), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	same = calloc(n, sizeof(*same));
	spread = calloc(n, sizeof(*spread));
	ASSERT_TRUE(delta != MAP_FAILED && same && spread);
	for (i = 0; i < n; i++) {
		same[i] = 2 + i;
		spread[i] = (i + 1) * bits + 1;
	}
	EXPECT_EQ(0, charge_run(CGROUP_TEST, same, n, &delta[0]));
	EXPECT_EQ(0, charge_run(CGROUP_TEST, spread, n, &delta[1]));
	want = n * page;
	TH_LOG("slab growth: %ld bytes for %d numbers in one page, %ld for one in each of %d pages",
	       delta[0], n, delta[1], n);
	EXPECT_GE(delta[1] - delta[0], want * 3 / 4)
		TH_LOG("%d bitmap pages of %ld bytes are not charged to the cgroup", n, page);

	rmdir(CGROUP_TEST);
	umount(CGROUP_DIR);
	rmdir(CGROUP_DIR);
	free(same);
	free(spread);
}

/* ------------------------------------------------------------------ */
/* A namespace's init exits while others fork into the namespace      */
/* ------------------------------------------------------------------ */

#define REAPER_ROUNDS	1000
#define REAPER_FORKERS	3

struct reaper_race {
	int nsfd;		/* the current namespace, or -1 */
	int gen;		/* bumped for each new namespace */
	int stop;
	int ping[2];		/* a forker got in: init may go */
	long forks[REAPER_FORKERS], fails[REAPER_FORKERS];
	int idx;
};

/* setns() into the current namespace, then fork and reap as fast as we can. */
static void *reaper_forker(void *arg)
{
	struct reaper_race *r = arg;
	int me = __atomic_fetch_add(&r->idx, 1, __ATOMIC_RELAXED);
	int fd, gen, n, seen = 0;
	pid_t p;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		gen = __atomic_load_n(&r->gen, __ATOMIC_ACQUIRE);
		fd = __atomic_load_n(&r->nsfd, __ATOMIC_RELAXED);
		if (gen == seen || fd < 0 || setns(fd, CLONE_NEWPID)) {
			sched_yield();
			continue;
		}
		seen = gen;
		for (n = 0;; n++) {
			p = fork();
			if (p == 0)
				_exit(0);
			if (p < 0) {
				/* ENOMEM: the namespace's init is gone. */
				r->fails[me]++;
				break;
			}
			r->forks[me]++;
			if (!n && write(r->ping[1], "f", 1) != 1)
				break;
			waitpid(p, NULL, 0);
		}
	}
	return NULL;
}

/*
 * The init of a PID namespace exits about 1 ms after the first fork into
 * it, while threads that setns() into the namespace fork into it as fast
 * as they can: some fork counts itself in the namespace just before init disables
 * allocation and frees its number on its error path, the last one before
 * init may go. Nothing here can see a use-after-free of the dying init;
 * the kernel log check of the run (KASAN, lockdep, RCU) can.
 */
TEST_F_TIMEOUT(pid, reaper_exit_race, 180)
{
	long long deadline = now_ms() + 30 * 1000;
	struct reaper_race r = { .nsfd = -1 };
	pthread_t th[REAPER_FORKERS];
	long forks = 0, fails = 0;
	int i, rounds = 0, status = 0, fd;
	char path[64], ch;
	pid_t init;

	ASSERT_EQ(0, pipe2(r.ping, O_NONBLOCK | O_CLOEXEC));
	for (i = 0; i < REAPER_FORKERS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, reaper_forker, &r));
	while (rounds < REAPER_ROUNDS && now_ms() < deadline) {
		while (read(r.ping[0], &ch, 1) == 1)
			;
		init = syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
		if (init == 0) {
			struct pollfd in = { .fd = r.ping[0], .events = POLLIN };
			struct timespec ms = { 0, 1000 * 1000 };

			/* Once a forker got in (or after 1 s), ~1 ms more. */
			poll(&in, 1, 1000);
			nanosleep(&ms, NULL);
			_exit(0);
		}
		if (init < 0) {
			status = -errno;
			break;
		}
		snprintf(path, sizeof(path), "/proc/%d/ns/pid", init);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			__atomic_store_n(&r.nsfd, fd, __ATOMIC_RELAXED);
			__atomic_add_fetch(&r.gen, 1, __ATOMIC_RELEASE);
		}
		status = wait_exit(init, TIMEOUT_MS);
		__atomic_store_n(&r.nsfd, -1, __ATOMIC_RELEASE);
		if (fd >= 0)
			close(fd);
		if (status)
			break;
		rounds++;
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < REAPER_FORKERS; i++) {
		pthread_join(th[i], NULL);
		forks += r.forks[i];
		fails += r.fails[i];
	}
	close(r.ping[0]);
	close(r.ping[1]);
	TH_LOG("%d namespaces, %ld forks into them, %ld refused as init went",
	       rounds, forks, fails);
	EXPECT_EQ(0, status);
	EXPECT_LE(50, rounds);
	EXPECT_LT(0, forks);
}

TEST_HARNESS_MAIN
