// SPDX-License-Identifier: GPL-2.0
/*
 * getpriority()/setpriority(PRIO_USER) walks while threads change users,
 * exec and fork.
 *
 * This program pins that the per-user walks of Linux 6.12 end, and answer
 * only values that were true at some instant, while the threads they walk
 * change under them: the regression net for changes to the per-user thread
 * lists.
 *
 * prio_user_flip_storm runs 500 setpriority()+getpriority(PRIO_USER) pairs
 * while four threads flip their real uid between UID_A and UID_B with the
 * raw setresuid syscall: every call returns, finds the thread that keeps
 * UID_A, and the kernel log shows no RCU stall.
 *
 * prio_user_exec_consistent execs 400 times (at most 60 s) from a
 * non-leader thread that moved to UID_B, while the leader (nice 11) and
 * three threads (nice 14) keep UID_A and another thread calls
 * getpriority(PRIO_USER, UID_A) without pause: every answer is 11 or ESRCH,
 * never the threads' 14 without their leader (de_thread() releases the
 * threads first).  It relies on natural timing; KUnit's
 * user_tasks_test_release_order forces the interleaving.
 *
 * prio_user_fork_chain keeps a chain of nice-0 processes of UID_A, each
 * forking its successor and exiting once a getpriority(PRIO_USER, UID_A)
 * walk has begun, while 8 times a new crowd of 3000 nice-10 threads of
 * UID_A is put in front of the live link: every answer is 0, since a nice-0
 * process exists at every instant.  A list that put the successor where the
 * walk already was answers 10; under QEMU TCG the window is narrow even
 * under KASAN (the series before the fix answered 0 in all 583,442 walks of
 * one debug run), so KUnit's user_tasks_test_fork_under_walk forces it.
 *
 * The tests need root and skip without it.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_SESSION	/* util.h defines FIXTURE(session) */
#include "util.h"

/* ------------------------------------------------------------------ */
/* PRIO_USER: threads that change users, exec and fork                 */
/* ------------------------------------------------------------------ */

#define FLIPPERS	4
#define STORM_CALLS	500

static int storm_stop;

/* Flip this thread's real uid between UID_B and UID_A; euid stays 0. */
static void *flip_fn(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&storm_stop, __ATOMIC_SEQ_CST)) {
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
	__atomic_store_n(&storm_stop, 1, __ATOMIC_SEQ_CST);
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

	if (geteuid())
		SKIP(return, "needs root");
	SPAWN(&v, v.fn = flip_storm_fn);
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

#define EXIT_ARG	"--prio-user-race-test-exit"
#define EXEC_ROUNDS	400
#define EXEC_THREADS	3

static int exec_stop;

struct exec_probe {
	long answers, esrch, bad, rounds;
	int bad_value;
};

/* getpriority(PRIO_USER, UID_A) until told to stop; tally the answers. */
static void *exec_probe_fn(void *arg)
{
	struct exec_probe *p = arg;
	int v;

	while (!__atomic_load_n(&exec_stop, __ATOMIC_SEQ_CST)) {
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
	execl("/proc/self/exe", "prio_user_race_test", EXIT_ARG,
	      (char *)NULL);
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

	if (geteuid())
		SKIP(return, "needs root");
	__atomic_store_n(&exec_stop, 0, __ATOMIC_SEQ_CST);
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
	__atomic_store_n(&exec_stop, 1, __ATOMIC_SEQ_CST);
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
static __noreturn void chain_link(void)
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

static __noreturn void chain_manager(void)
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
static __noreturn void chain_crowd(pid_t parent, int ready)
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
 * window is narrow even under KASAN; KUnit's
 * user_tasks_test_fork_under_walk forces it.
 */
TEST_F_TIMEOUT(session, prio_user_fork_chain, 300)
{
	int ready[2], r, status = 0;
	pid_t mgr, crowd;
	pthread_t walker;
	char c;

	if (geteuid())
		SKIP(return, "needs root");
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
	/* prio_user_exec_consistent's execs end at once. */
	if (argc == 2 && !strcmp(argv[1], EXIT_ARG))
		return 0;
	return test_harness_run(argc, argv);
}
