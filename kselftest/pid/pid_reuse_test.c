// SPDX-License-Identifier: GPL-2.0
/*
 * Reused PID numbers: /proc readdir, pidfds, a dying namespace init.
 *
 * This program pins the syscall-level behaviour of Linux 6.12's PID
 * allocator (alloc_pid()/free_pid() on top of one IDR per PID namespace)
 * where numbers are freed and handed out again, as the reference for a
 * replacement allocator:
 *   - /proc readdir while processes and threads come and go;
 *   - a pidfd never follows its number to a new process;
 *   - a PID namespace whose init exits while others fork into it.
 * Every value and errno is checked exactly; each test names the 6.12 code
 * it pins.
 *
 * proc_readdir_under_churn: while one process forks/reaps and another
 *	creates/joins threads, every /proc readdir pass (getdents64 with a
 *	256-byte buffer, so it resumes often) lists 48 long-lived processes,
 *	the test, the churners and a multi-threaded process; entries are
 *	strictly increasing; thread ids are not listed but /proc/<tid>
 *	resolves to its thread group.
 * pidfd_open_no_reuse: pid_max 1000, new namespace: a pidfd_open() pidfd
 *	of a killed process; while a zombie, pidfd_send_signal() succeeds and
 *	poll() gives POLLIN; after waitid(P_PIDFD) reaps it, ESRCH, ECHILD,
 *	POLLIN|POLLHUP, fdinfo Pid -1; after a natural wrap hands its number
 *	(300) to a new process, the old pidfd still gives ESRCH and signals
 *	nothing (checked with SIGUSR2 and SIGKILL against a signal-recording
 *	process).
 * clone_pidfd_no_reuse: the same for a CLONE_PIDFD pidfd whose number is
 *	reused through set_tid; waitid(P_PIDFD, WNOWAIT) sees the exit
 *	status; the two pidfds have different pidfs inodes and pidfd_open()
 *	of the number gets the new one.
 * reaper_exit_race: 1000 rounds (at most 30 s): a new PID namespace whose
 *	init exits about 1 ms after the first fork into it, while three
 *	threads setns() into the namespace and fork (and reap) as fast as
 *	they can.  Every init must exit and forks must land; what it is for
 *	is the kernel log check of the run (a fork that counted itself just
 *	before init disabled allocation frees its number on its error path,
 *	the last one before init may go): run it on a debug kernel (KASAN,
 *	PREEMPT) too.
 *
 * The tests need root; they skip without it.
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/sched.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_PID	/* util.h defines FIXTURE(pid) */
#include "util.h"

#ifndef P_PIDFD
#define P_PIDFD		3
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open	434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif

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

static void recorder_handler(int sig)
{
	if (sig == SIGUSR1)
		__atomic_add_fetch(&sh->usr1[rec_slot], 1, __ATOMIC_SEQ_CST);
	else
		__atomic_add_fetch(&sh->usr2[rec_slot], 1, __ATOMIC_SEQ_CST);
}

/* A child (of fork() or clone3()) counts SIGUSR1/2 into sh slot @slot. */
static __noreturn void recorder_main(pid_t parent, int slot)
{
	struct sigaction sa = { .sa_handler = recorder_handler };
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
	long long deadline = now_ms() + PID_TIMEOUT_MS;

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
/* /proc readdir under churn                                           */
/* ------------------------------------------------------------------ */

#define NSLEEPERS	48
#define NMT_THREADS	3
#define MAX_ENTRIES	65536

struct churn {
	long forks;
	long threads;
};

struct linux_dirent64 {
	__u64		d_ino;
	__s64		d_off;
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

/* @pid is among the first @n entries of @pids, which are sorted. */
static bool listed(const int *pids, int n, int pid)
{
	return bsearch(&pid, pids, n, sizeof(int), cmp_int);
}

static __noreturn void churner(struct churn *ch, bool threads)
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
	deadline = now_ms() + PID_TIMEOUT_MS;
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
	deadline = now_ms() + PID_TIMEOUT_MS;
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
		missing = 0;
		listed_tid = 0;
		for (i = 0; i < NSLEEPERS; i++)
			if (!listed(pids, n, sleepers[i]))
				missing = sleepers[i];
		j = getpid();
		if (!listed(pids, n, j))
			missing = j;
		if (!listed(pids, n, mt))
			missing = mt;
		if (!listed(pids, n, c1))
			missing = c1;
		if (!listed(pids, n, c2))
			missing = c2;
		for (i = 0; i < ntids; i++)
			if (tids[i] != mt && listed(pids, n, tids[i]))
				listed_tid = tids[i];
		ASSERT_EQ(0, missing)
			TH_LOG("pass %ld: live process %d not listed", passes,
			       missing);
		ASSERT_EQ(0, listed_tid)
			TH_LOG("pass %ld: thread %d listed", passes,
			       listed_tid);
		passes++;
	}
	TH_LOG("%ld passes of /proc (%d entries) in %lld ms, %ld forks and %ld threads around them",
	       passes, n, now_ms() - start, ch->forks - forks0,
	       ch->threads - threads0);
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
/* pidfds and reused numbers                                           */
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
	/*
	 * The limit this namespace wraps at, set from inside it: 6.12's is
	 * global, a namespace's own since 6.14 (a new one starts at
	 * PID_MAX_LIMIT).
	 */
	CHECK_EQ(write_long(PID_MAX, c->pid_max), 0);
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
	CHECK_EQ(poll_once(fd, PID_TIMEOUT_MS), POLLIN);
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
	if (!RUN_IN_PIDNS(pidfd_wrap_scenario, &c, NS_TIMEOUT_S))
		return;
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
	CHECK(poll_once(fd, PID_TIMEOUT_MS) & POLLIN);
	/* WNOWAIT: see it, leave it a zombie, reap it the classic way */
	memset(&si, 0, sizeof(si));
	CHECK_EQ(waitid(P_PIDFD, fd, &si, WEXITED | WNOWAIT), 0);
	CHECK_EQ(si.si_pid, a);
	CHECK_EQ(si.si_code, CLD_EXITED);
	CHECK_EQ(si.si_status, 7);
	CHECK_EQ(sys_pidfd_send_signal(fd, 0), 0);
	CHECK_EQ(wait_exit_ms(a, PID_TIMEOUT_MS), 7);
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
	if (!RUN_IN_PIDNS(clone_pidfd_scenario, &c, NS_TIMEOUT_S))
		return;
	munmap(sh, sizeof(*sh));
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
		status = wait_exit_ms(init, PID_TIMEOUT_MS);
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
