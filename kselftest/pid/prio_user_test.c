// SPDX-License-Identifier: GPL-2.0
/*
 * setpriority()/getpriority(PRIO_USER) and ioprio_set()/ioprio_get()
 * (IOPRIO_WHO_USER): exactly the threads of a real uid.
 *
 * This program pins the syscall-level behaviour of Linux 6.12 for the
 * per-user forms of the priority syscalls, which walk every thread of a
 * user: it is the regression net for changes to the per-user thread lists.
 * Values and errnos are checked exactly.  Where 6.12 does something
 * surprising the test pins it with a comment naming the code responsible.
 *
 * setpriority_user and ioprio_user set the nice value and the I/O priority
 * of exactly the threads of one user, and read back the best value among
 * them; ESRCH for a uid without processes; an unprivileged caller reaches
 * only its own uid (ioprio_user).
 *
 * The prio_user_* tests pin exactly which threads setpriority()/
 * getpriority(PRIO_USER) and ioprio_set()/ioprio_get(IOPRIO_WHO_USER)
 * reach: those whose real uid matches (task_uid()), including non-leader
 * threads, threads that changed their own uid with the raw setresuid
 * syscall (a "crew" helper), processes that changed uid after fork, across
 * execve() (also from a non-leader thread), ~200 threads, and never
 * threads/processes that exited and were released/reaped.  They keep a
 * model of every thread of UID_A/UID_B and check each thread and each
 * per-user answer; model_probe() puts each thread in turn on top to catch
 * wrong membership.  6.12 quirks pinned there: zombies are still walked;
 * ioprio_set(WHO_USER, 0) means uid 0 (ioprio_get(WHO_USER, 0) means the
 * caller's user); an unprivileged caller gets EPERM from cap_safe_nice()
 * for a same-uid thread that holds more permitted capabilities.
 *
 * prio_user_high_uid reaches a process of uid 3000000000 (bit 31 set; on
 * 32-bit the per-user list of such a uid once never ended).
 *
 * The tests need root (CAP_SETUID, CAP_SYS_NICE) and skip without it; the
 * ones that need ioprio skip when the kernel has no ioprio_get() (CONFIG_BLOCK=n).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/ioprio.h>

#include "../kselftest_harness.h"
#define UTIL_FIXTURE_SESSION	/* util.h defines FIXTURE(session) */
#include "util.h"

#define PAUSE_ARG	"--prio-user-test-pause"

/* ------------------------------------------------------------------ */
/* setpriority() / getpriority() with PRIO_USER                        */
/* ------------------------------------------------------------------ */

TEST_F(session, setpriority_user)
{
	struct child u1, u2, v;
	pid_t t, tv;

	if (geteuid())
		SKIP(return, "needs root");
	SPAWN(&u1, u1.uid = UID_A, u1.nthreads = 2);
	SPAWN(&u2, u2.uid = UID_A, u2.pgid = 0, u2.nthreads = 1);
	SPAWN(&v, v.uid = UID_B, v.nthreads = 1);

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

/* ------------------------------------------------------------------ */
/* ioprio_set() / ioprio_get() with IOPRIO_WHO_USER                    */
/* ------------------------------------------------------------------ */

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

	if (!root_with_ioprio(_metadata))
		return;
	SPAWN(&u1, u1.uid = UID_A, u1.nthreads = 2);
	SPAWN(&u2, u2.uid = UID_A, u2.pgid = 0);
	SPAWN(&v, v.uid = UID_B, v.pgid = 0, v.nthreads = 1);
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
	SPAWN(&w, w.uid = UID_A, w.pgid = 0, w.fn = unpriv_ioprio_fn,
	      w.arg = v.pid);
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
		snprintf(msg, len,
			 "uid %u: raw getpriority %ld (errno %d), expected %ld; ioprio_get %#x (errno %d), expected %#x",
			 u, r, e1, want, rio, e2, io);
	return ok;
}

/* How model_check() reports a thread that differs from the model. */
#define THREAD_DIFFERS							\
	"tid %d of %d (uid %u): nice %ld (/proc: %ld), ioprio %#x; expected nice %d, ioprio %#x"

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
			TH_LOG(THREAD_DIFFERS, m->tid[i], m->pid[i], m->uid[i],
			       nice, pnice, io, m->nice[i], m->ioprio[i]);
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
	/* An unknown command: answered like an invalid argument. */
	errno = EINVAL;
	return errno;
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
	struct child *__c = (c);					\
	ASSERT_EQ(0, child_init(__c));					\
	ASSERT_EQ(0, crew_start(__c, (tids), (n)));			\
} while (0)

#define CREW(c, idx, op, arg) do {					\
	int __idx = (idx), __op = (op);					\
	ASSERT_EQ(0, crew_cmd((c), __idx, __op, (arg)))			\
		TH_LOG("crew thread %d, op '%c'", __idx, __op);		\
} while (0)

#define CREW_FINISH(c) do {						\
	struct child *__c = (c);					\
	struct crew_cmd __x = { .idx = 0, .op = 'x' };			\
	ASSERT_EQ(0, write_full(__c->cmd[1], &__x, sizeof(__x)));	\
	ASSERT_EQ(0, wait_exit(__c->pid));				\
} while (0)

/* Non-leader threads of UID_A's processes, one by one. */
TEST_F(session, prio_user_threads)
{
	struct model m = { 0 };
	struct child u1, u2, v;

	if (!root_with_ioprio(_metadata))
		return;
	SPAWN(&u1, u1.uid = UID_A, u1.nthreads = 3);
	SPAWN(&u2, u2.uid = UID_A, u2.pgid = 0, u2.nthreads = 2);
	SPAWN(&v, v.uid = UID_B, v.nthreads = 2);
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

	if (!root_with_ioprio(_metadata))
		return;
	CREW_START(&p, t, 4);
	SPAWN(&v, v.uid = UID_B, v.nthreads = 1);
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

	if (!root_with_ioprio(_metadata))
		return;
	SPAWN(&r, r.nthreads = 2, r.fn = switch_uid_fn, r.arg = UID_A);
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
	SPAWN(&p, p.fn = fork_as_a_fn, p.data = &t);
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

	if (!root_with_ioprio(_metadata))
		return;
	CREW_START(&p, t, 4);
	SPAWN(&v, v.uid = UID_B, v.nthreads = 1);
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

	if (!root_with_ioprio(_metadata))
		return;
	SPAWN(&z, z.uid = UID_A, z.nthreads = 2);
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
	execl("/proc/self/exe", "prio_user_test", PAUSE_ARG, buf,
	      (char *)NULL);
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

	if (!root_with_ioprio(_metadata))
		return;
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

	if (!root_with_ioprio(_metadata))
		return;
	memset(&m, 0, sizeof(m));
	SPAWN(&u, u.uid = UID_A, u.fn = many_threads_fn, u.arg = MANY_THREADS);
	ASSERT_REPLY(&u, MANY_THREADS + 1);
	/* The short-lived threads may not have been released yet. */
	do {
		n = list_tids(u.pid, tids, MODEL_MAX);
		if (n == MANY_THREADS + 1)
			break;
		usleep(5000);
	} while (now_ms() < deadline);
	ASSERT_EQ(MANY_THREADS + 1, n);
	SPAWN(&v, v.uid = UID_B, v.nthreads = 1);

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

	if (!root_with_ioprio(_metadata))
		return;
	/*
	 * t[0], t[1]: uid A without capabilities (saved uid A too);
	 * t[2]: uid B; t[3]: uid A with saved uid 0, for now.
	 */
	CREW_START(&p, t, 4);
	CREW(&p, 0, 'U', UID_A);
	CREW(&p, 1, 'U', UID_A);
	CREW(&p, 2, 'U', UID_B);
	SPAWN(&v, v.uid = UID_B, v.nthreads = 1);
	for (i = 0; i < 4; i++)
		if (i != 2)
			model_add(_metadata, &m, p.pid, t[i], UID_A, 10,
				  IOPRIO_BE(3));
	model_add(_metadata, &m, p.pid, t[2], UID_B, b.nice, b.ioprio);
	model_add_all(_metadata, &m, v.pid, UID_B, 9, IOPRIO_BE(5));
	model_check(_metadata, &m);

	SPAWN(&w, w.uid = UID_A, w.pgid = 0, w.fn = unpriv_user_fn,
	      w.data = &b);
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
/* PRIO_USER: uids with bit 31 set                                     */
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

	if (geteuid())
		SKIP(return, "needs root");
	SPAWN(&v, v.uid = UID_HIGH);

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

int main(int argc, char **argv)
{
	/* prio_user_exec re-executes us with PAUSE_ARG. */
	if (argc == 3 && !strcmp(argv[1], PAUSE_ARG))
		return pause_main(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
