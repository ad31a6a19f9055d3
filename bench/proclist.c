// SPDX-License-Identifier: GPL-2.0
/*
 * proclist: the cost of one full listing of /proc (open, getdents64 until
 * the end, close) while 10 processes of ours exist, one of which has
 * NTHREADS extra threads.
 *
 * 6.12's next_tgid() steps through every number in use, threads
 * included, and skips the threads; with a TGID index the listing should
 * no longer grow with the threads. Run as root in the bench guest:
 * proclist NTHREADS [ROUNDS]. Prints one "bench row" line (bench.h): us
 * per listing, median and min-max over ROUNDS listings, and the number of
 * entries the last one returned on stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define PROCS	10
#define TABLE	"listing /proc (getdents64), 10 processes, extra threads in one"

static void die(const char *what)
{
	fprintf(stderr, "proclist: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* A process with @n extra threads; writes 1 byte to @ready_fd when up. */
static pid_t spawn(long n, int ready_fd)
{
	pthread_attr_t attr;
	pthread_t t;
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 16384);
	for (long i = 0; i < n; i++) {
		int err = pthread_create(&t, &attr, sleeper, NULL);

		if (err) {
			errno = err;
			die("pthread_create");
		}
	}
	if (write(ready_fd, "r", 1) != 1)
		die("write");
	for (;;)
		pause();
}

/* One listing: its time in us; *entries the number of entries. */
static double list_once(int *entries)
{
	char buf[32768];
	double t0 = now_us();
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n, count = 0;

	if (fd < 0)
		die("open /proc");
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n; count++)
			off += ((struct dirent64 *)(buf + off))->d_reclen;
	}
	if (n < 0)
		die("getdents64");
	close(fd);
	*entries = count;
	return now_us() - t0;
}

int main(int argc, char **argv)
{
	long nthreads = argc > 1 ? atol(argv[1]) : 0;
	int rounds = argc > 2 ? atoi(argv[2]) : 21;
	double *v = calloc(rounds, sizeof(*v));
	pid_t pids[PROCS];
	int pfd[2], entries = 0, i;
	char c;

	if (!v || pipe(pfd))
		die("setup");
	for (i = 0; i < PROCS; i++) {
		pids[i] = spawn(i ? 0 : nthreads, pfd[1]);
		if (pids[i] < 0)
			die("fork");
		if (read(pfd[0], &c, 1) != 1)
			die("read");
	}
	list_once(&entries);	/* warm the dentries */
	for (i = 0; i < rounds; i++)
		v[i] = list_once(&entries);
	fprintf(stderr, "proclist: %ld extra threads: %d entries in /proc\n",
		nthreads, entries);
	bench_row(TABLE, "us", "lower", v, rounds, "%ld extra threads", nthreads);
	for (i = 0; i < PROCS; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
