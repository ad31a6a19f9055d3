// SPDX-License-Identifier: GPL-2.0
/*
 * prio_user: latency of setpriority() and getpriority() with PRIO_USER for
 * a user that owns one thread, while NTHREADS threads of other users exist.
 *
 * 6.12 walks every thread in the system for PRIO_USER; with per-user
 * thread lists the cost should no longer grow with other users' threads.
 * Run as root in the bench guest: prio_user NTHREADS [ROUNDS [CALLS]].
 * Prints one line: "prio_user threads=N set=MED (MIN-MAX) get=MED (MIN-MAX)"
 * in ns per call, median (min-max) over ROUNDS rounds of CALLS calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TARGET_UID	4000
#define OTHER_UID	5000
#define OTHER_PROCS	10

static void die(const char *what)
{
	fprintf(stderr, "prio_user: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* A process of @uid with @n threads (counting itself); writes 1 byte when up. */
static pid_t spawn(uid_t uid, int n, int ready_fd)
{
	pthread_attr_t attr;
	pid_t pid = fork();
	int i;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (syscall(SYS_setresuid, uid, uid, uid))
		die("setresuid");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 16384);
	for (i = 1; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, &attr, sleeper, NULL)) {
			errno = EAGAIN;
			die("pthread_create");
		}
	}
	if (write(ready_fd, "x", 1) != 1)
		die("write");
	for (;;)
		pause();
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void stats(long long *v, int n, long long out[3])
{
	qsort(v, n, sizeof(*v), cmp);
	out[0] = v[n / 2];
	out[1] = v[0];
	out[2] = v[n - 1];
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 10000;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	int calls = argc > 3 ? atoi(argv[3]) : 50;
	pid_t pids[OTHER_PROCS + 1];
	long long set[64], get[64], s[3], g[3];
	int p[2], i, r, up = 0;
	char c;

	if (rounds > 64)
		rounds = 64;
	if (pipe(p))
		die("pipe");
	for (i = 0; i < OTHER_PROCS; i++)
		pids[i] = spawn(OTHER_UID + i, nthreads / OTHER_PROCS, p[1]);
	pids[OTHER_PROCS] = spawn(TARGET_UID, 1, p[1]);
	for (up = 0; up <= OTHER_PROCS; up++)
		if (read(p[0], &c, 1) != 1)
			die("a process did not come up");

	for (r = 0; r < rounds; r++) {
		long long t0 = now_ns();

		for (i = 0; i < calls; i++)
			if (setpriority(PRIO_USER, TARGET_UID, 1 + (i & 1)))
				die("setpriority");
		set[r] = (now_ns() - t0) / calls;
		t0 = now_ns();
		for (i = 0; i < calls; i++) {
			errno = 0;
			if (getpriority(PRIO_USER, TARGET_UID) == -1 && errno)
				die("getpriority");
		}
		get[r] = (now_ns() - t0) / calls;
	}
	stats(set, rounds, s);
	stats(get, rounds, g);
	printf("prio_user threads=%d set=%lld (%lld-%lld) get=%lld (%lld-%lld)\n",
	       nthreads, s[0], s[1], s[2], g[0], g[1], g[2]);
	fflush(stdout);
	for (i = 0; i <= OTHER_PROCS; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
