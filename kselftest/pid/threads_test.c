// SPDX-License-Identifier: GPL-2.0
/*
 * Many threads, and the memory cost of a PID namespace's numbers.
 *
 * This program pins the syscall-level behaviour of Linux 6.12's PID
 * allocator (alloc_pid()/free_pid() on top of one IDR per PID namespace)
 * under many allocations, as the reference for a replacement allocator:
 * 10,000 live threads, 100,000 created in a sliding window.  It also checks
 * that the bitmap pages behind a PID namespace's numbers are charged to the
 * memory cgroup of the task that needed them.  Every value and errno is
 * checked exactly.
 *
 * threads_10k: 10,000 threads (16 KiB stacks) alive at once in one
 *	process: distinct tids in [1, pid_max), each found by tgkill(0),
 *	/proc/self/task lists 10,001; after the joins all are ESRCH and one
 *	task remains.
 * threads_100k: 100,000 threads created and joined, 4,096 alive at a
 *	time: no tid ever given to two live threads, none below 300 after
 *	the space wrapped, and the number of wraps (drops of more than half
 *	the space: threads made on two CPUs come from two windows) is about
 *	100,000 / (pid_max - 300) (cyclic allocation, not lowest-free
 *	reuse).  Raises threads-max/pid_max if they are too low, skips if
 *	MemAvailable is too small.
 * bitmap_pages_charged: pid_max 4194304, two runs in a child cgroup
 *	(cgroup2, memory controller), each a new PID namespace with the same
 *	number of processes made by clone3() set_tid: numbers in one bitmap
 *	page, then one number in each page (127 with 4 KiB pages).  The
 *	cgroup's slab_unreclaimable must grow by at least 3/4 of those pages
 *	more in the second run: the bitmap pages are charged to the cgroup of
 *	the task that needed them.  Skips on 32-bit (one page) and without
 *	CONFIG_MEMCG.
 *
 * The tests need root; they skip without it.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
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

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_PID	/* util.h defines FIXTURE(pid) */
#include "util.h"

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

/* ------------------------------------------------------------------ */
/* many threads                                                        */
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
	for (i = 0; i < PID_CHILD_ALARM; i++) {
		if (__atomic_load_n(stop, __ATOMIC_SEQ_CST) > 0)
			break;
		futex_wait_ms(stop, 0, 1000);
	}
	return NULL;
}

static bool wait_tid(struct slot *s)
{
	long long deadline = now_ms() + PID_TIMEOUT_MS;

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
	deadline = now_ms() + PID_TIMEOUT_MS;
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
	TH_LOG("%d threads (%d live at a time) in %lld ms, pid_max %ld, %ld wraps",
	       N100K, WINDOW, now_ms() - start, pid_max, descents);
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
	if (wait_exit_ms(c, 60 * 1000) != 0)
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

TEST_HARNESS_MAIN
