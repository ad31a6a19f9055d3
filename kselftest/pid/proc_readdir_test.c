// SPDX-License-Identifier: GPL-2.0
/*
 * What a listing of /proc shows: exactly the thread-group leaders of the
 * proc mount's PID namespace, in increasing order, whatever the threads
 * do meanwhile.
 *
 * leaders_not_threads: a process with threads is listed once, by its
 *	TGID; no thread's own number is listed; the listing increases.
 * thread_churn: while two processes create and end threads as fast as
 *	they can, every listing holds the stable processes and no number
 *	that was ever one of the churners' threads.
 * zombie_leader: a leader that called pthread_exit() while its threads
 *	run is still listed (state Z); so is an exited child until it is
 *	reaped, and not after.
 * exec_from_thread: after a non-leader thread execs, the process is
 *	listed under its TGID and the thread's former number is not.
 * pidns_view: a proc mounted in a new PID namespace lists exactly the
 *	namespace's processes, by their numbers there.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "util.h"

#define MAX_LISTED	65536

FIXTURE(readdir) {
	int dummy;
};

FIXTURE_SETUP(readdir)
{
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
}

/* Whatever a failed test left running goes with it. */
FIXTURE_TEARDOWN(readdir)
{
	kill_children();
	reap_all(PID_TIMEOUT_MS);
}

/*
 * The numeric entries of the /proc at @dir, in the order readdir() gives
 * them: how many, or -1 if they do not increase strictly.
 */
static int list_proc(const char *dir, pid_t *out, int max)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name)
			continue;
		if (n && v <= out[n - 1]) {
			fprintf(stderr, "# %s: %ld listed after %d\n", dir, v,
				out[n - 1]);
			closedir(d);
			return -1;
		}
		if (n < max)
			out[n++] = v;
	}
	closedir(d);
	return n;
}

static bool listed(const pid_t *l, int n, pid_t pid)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (l[mid] == pid)
			return true;
		if (l[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static pid_t sys_gettid(void)
{
	return syscall(SYS_gettid);
}

/* ------------------------------------------------------------------ */

#define THREADS		32

struct threaded {
	pid_t pid;
	pid_t tids[THREADS];
};

/*
 * A child with THREADS extra threads that pause; their numbers in
 * @t (shared memory). The child exits with its parent.
 */
static pid_t spawn_threaded(struct threaded *t)
{
	pid_t parent = getpid();
	int pfd[2], i;
	char c;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		die_with_parent(parent);
		for (i = 0; i < THREADS; i++) {
			pthread_t th;

			CHECK_EQ(pthread_create(&th, NULL, idle_thread, NULL), 0);
		}
		/* Their numbers, from /proc/self/task. */
		CHECK_EQ(list_tids(getpid(), t->tids, THREADS + 1), THREADS + 1);
		CHECK_EQ(write(pfd[1], "r", 1), 1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1) {
		close(pfd[0]);
		return -EIO;
	}
	close(pfd[0]);
	t->pid = pid;
	return pid;
}

TEST_F_TIMEOUT(readdir, leaders_not_threads, 120)
{
	struct threaded *t = mmap(NULL, sizeof(*t) + sizeof(pid_t),
				  PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t *l = calloc(MAX_LISTED, sizeof(*l));
	int n, i, threads = 0;

	ASSERT_NE(MAP_FAILED, t);
	ASSERT_NE(NULL, l);
	ASSERT_LT(0, spawn_threaded(t));
	n = list_proc("/proc", l, MAX_LISTED);
	ASSERT_LT(0, n);
	EXPECT_TRUE(listed(l, n, getpid()));
	EXPECT_TRUE(listed(l, n, t->pid));
	for (i = 0; i < THREADS + 1; i++) {
		if (t->tids[i] == t->pid)
			continue;
		threads++;
		EXPECT_FALSE(listed(l, n, t->tids[i]))
			TH_LOG("thread %d of %d listed", t->tids[i], t->pid);
	}
	EXPECT_EQ(THREADS, threads);
	kill(t->pid, SIGKILL);
	ASSERT_EQ(128 + SIGKILL, wait_exit_ms(t->pid, PID_TIMEOUT_MS));
	free(l);
}

/* ------------------------------------------------------------------ */

#define CHURNERS	2

struct churn {
	atomic_int stop;
	atomic_uint seen;		/* threads created */
};

static struct churn *churn;

static void *churn_thread(void *arg)
{
	atomic_fetch_add(&churn->seen, 1);
	return NULL;
}

/* Create and join threads on @cpu (if it can) until told to stop. */
static pid_t spawn_churner(int cpu)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		die_with_parent(parent);
		run_on_cpu(cpu);
		while (!atomic_load(&churn->stop)) {
			pthread_t th[4];
			int i;

			for (i = 0; i < 4; i++)
				CHECK_EQ(pthread_create(&th[i], NULL, churn_thread, NULL), 0);
			for (i = 0; i < 4; i++)
				pthread_join(th[i], NULL);
		}
		_exit(0);
	}
	return pid < 0 ? -errno : pid;
}

/* Mount a proc of the caller's PID namespace on /proc, privately. */
static void mount_own_proc(void)
{
	CHECK_EQ(unshare(CLONE_NEWNS), 0);
	CHECK_EQ(mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL), 0);
	CHECK_EQ(mount("proc", "/proc", "proc", 0, NULL), 0);
}

/*
 * In a PID namespace of its own, whose only processes are its init and
 * the churners, every listing is exactly those: a thread's number,
 * however briefly it lives, never appears.
 */
static int thread_churn_fn(void *arg)
{
	long long deadline = now_ms() + 60000;
	pid_t l[64], churners[CHURNERS];
	int round, i, n;

	mount_own_proc();
	for (i = 0; i < CHURNERS; i++)
		CHECK((churners[i] = spawn_churner(i)) > 0);
	/* At least 200 listings, and until 2000 threads came and went. */
	for (round = 0; round < 200 || (atomic_load(&churn->seen) < 2000 &&
					now_ms() < deadline); round++) {
		n = list_proc("/proc", l, 64);
		if (n != CHURNERS + 1)
			fprintf(stderr, "# round %d: %d listed\n", round, n);
		CHECK_EQ(n, CHURNERS + 1);
		CHECK_EQ(l[0], 1);
		for (i = 0; i < CHURNERS; i++)
			CHECK_EQ(l[i + 1], churners[i]);
	}
	atomic_store(&churn->stop, 1);
	for (i = 0; i < CHURNERS; i++)
		CHECK_EQ(wait_exit_ms(churners[i], PID_TIMEOUT_MS), 0);
	fprintf(stderr, "# %d listings, %u threads created meanwhile\n",
		round, atomic_load(&churn->seen));
	CHECK(atomic_load(&churn->seen) > 1000);
	return 0;
}

TEST_F_TIMEOUT(readdir, thread_churn, 120)
{
	if (geteuid())
		SKIP(return, "needs root");
	churn = mmap(NULL, sizeof(*churn), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, churn);
	RUN_IN_PIDNS(thread_churn_fn, NULL, 100);
}

/* ------------------------------------------------------------------ */

static char proc_state(pid_t pid)
{
	long v = proc_stat(pid, 0, STAT_STATE);

	return v < 0 ? 0 : (char)v;
}

static void *exit_leader_thread(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

TEST_F_TIMEOUT(readdir, zombie_leader, 120)
{
	pid_t *l = calloc(MAX_LISTED, sizeof(*l));
	pid_t parent = getpid(), pid, zombie;
	int n, i;

	ASSERT_NE(NULL, l);
	/* A leader that exits while its thread runs. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pthread_t th;

		die_with_parent(parent);
		CHECK_EQ(pthread_create(&th, NULL, exit_leader_thread, NULL), 0);
		pthread_exit(NULL);
	}
	for (i = 0; i < 500 && proc_state(pid) != 'Z'; i++)
		usleep(10000);
	ASSERT_EQ('Z', proc_state(pid));
	/* A child that exited and is not reaped yet. */
	zombie = fork();
	ASSERT_LE(0, zombie);
	if (zombie == 0)
		_exit(0);
	for (i = 0; i < 500 && proc_state(zombie) != 'Z'; i++)
		usleep(10000);
	ASSERT_EQ('Z', proc_state(zombie));

	n = list_proc("/proc", l, MAX_LISTED);
	ASSERT_LT(0, n);
	EXPECT_TRUE(listed(l, n, pid));
	EXPECT_TRUE(listed(l, n, zombie));

	ASSERT_EQ(0, wait_exit_ms(zombie, PID_TIMEOUT_MS));
	kill(pid, SIGKILL);
	ASSERT_EQ(128 + SIGKILL, wait_exit_ms(pid, PID_TIMEOUT_MS));
	n = list_proc("/proc", l, MAX_LISTED);
	ASSERT_LT(0, n);
	EXPECT_FALSE(listed(l, n, pid));
	EXPECT_FALSE(listed(l, n, zombie));
	free(l);
}

/* ------------------------------------------------------------------ */

struct exec_arg {
	int fd;		/* the new image writes its pid here */
};

static void *exec_thread(void *arg)
{
	struct exec_arg *a = arg;
	char fd[16];

	snprintf(fd, sizeof(fd), "%d", a->fd);
	execl("/proc/self/exe", "proc_readdir_test", "--exec-report", fd,
	      (char *)NULL);
	_exit(97);
}

TEST_F_TIMEOUT(readdir, exec_from_thread, 120)
{
	pid_t *l = calloc(MAX_LISTED, sizeof(*l));
	pid_t parent = getpid(), pid, reported, tid;
	int pfd[2], n;

	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct exec_arg a = { .fd = pfd[1] };
		pthread_t th;

		die_with_parent(parent);
		close(pfd[0]);
		CHECK_EQ(pthread_create(&th, NULL, exec_thread, &a), 0);
		for (;;)
			pause();
	}
	close(pfd[1]);
	/* The new image reports the pid and the tid it had. */
	ASSERT_EQ(sizeof(reported), read(pfd[0], &reported, sizeof(reported)));
	ASSERT_EQ(sizeof(tid), read(pfd[0], &tid, sizeof(tid)));
	close(pfd[0]);
	EXPECT_EQ(pid, reported);
	EXPECT_EQ(pid, tid);

	n = list_proc("/proc", l, MAX_LISTED);
	ASSERT_LT(0, n);
	EXPECT_TRUE(listed(l, n, pid));
	/* /proc/<pid>/task holds the one thread left: the leader's number. */
	EXPECT_EQ(1, list_tids(pid, &tid, 1));
	EXPECT_EQ(pid, tid);
	kill(pid, SIGKILL);
	ASSERT_EQ(128 + SIGKILL, wait_exit_ms(pid, PID_TIMEOUT_MS));
	free(l);
}

/* ------------------------------------------------------------------ */

static int pidns_view_fn(void *arg)
{
	struct threaded *t = arg;
	pid_t l[64], p1, p2;
	int n;

	mount_own_proc();
	CHECK((p1 = spawn_pauser()) > 0);
	CHECK(spawn_threaded(t) > 0);
	CHECK((p2 = spawn_pauser()) > 0);
	n = list_proc("/proc", l, 64);
	CHECK_EQ(n, 4);
	CHECK_EQ(l[0], 1);
	CHECK_EQ(l[1], p1);
	CHECK_EQ(l[2], t->pid);
	CHECK_EQ(l[3], p2);
	return 0;
}

TEST_F_TIMEOUT(readdir, pidns_view, 120)
{
	struct threaded *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, t);
	if (geteuid())
		SKIP(return, "needs root");
	RUN_IN_PIDNS(pidns_view_fn, t, 60);
}

/*
 * The image a thread of exec_from_thread execs: report getpid() and
 * gettid() on the fd named in argv[2], then wait to be killed.
 */
static int exec_report(int argc, char **argv)
{
	int fd = atoi(argv[2]);
	pid_t pid = getpid(), tid = sys_gettid();

	if (write(fd, &pid, sizeof(pid)) != sizeof(pid) ||
	    write(fd, &tid, sizeof(tid)) != sizeof(tid))
		return 1;
	close(fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--exec-report"))
		return exec_report(argc, argv);
	return test_harness_run(argc, argv);
}
