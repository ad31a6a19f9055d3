// SPDX-License-Identifier: GPL-2.0
/*
 * prio_user: latency of setpriority() and getpriority() with PRIO_USER for
 * a user that owns one thread, while NTHREADS threads of other users exist.
 *
 * 6.12 walks every thread in the system for PRIO_USER; with per-user
 * thread lists the cost should no longer grow with other users' threads.
 * Run as root in the bench guest: prio_user NTHREADS [ROUNDS [CALLS]].
 * Prints two "bench row" lines (bench.h), setpriority and getpriority, in
 * ns per call: median and min-max over ROUNDS rounds of CALLS calls.
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

#include "bench.h"

#define TARGET_UID	4000
#define OTHER_UID	5000
#define OTHER_PROCS	10
#define PRIO		"PRIO_USER, 1 thread of the user"

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

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 10000;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	int calls = argc > 3 ? atoi(argv[3]) : 50;
	pid_t pids[OTHER_PROCS + 1];
	double set[64], get[64];
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
	bench_row(PRIO, "ns/call", "lower", set, rounds,
		  "setpriority, %d other threads", nthreads);
	bench_row(PRIO, "ns/call", "lower", get, rounds,
		  "getpriority, %d other threads", nthreads);
	fflush(stdout);
	for (i = 0; i <= OTHER_PROCS; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
