// SPDX-License-Identifier: GPL-2.0
/*
 * threads N FILE [ROUNDS GO]: a process of N threads (the main one
 * included). When all N run, FILE gets "ready N". Without ROUNDS they
 * block until killed. With ROUNDS, once the file GO exists, each thread
 * but the main one adds 1 to a shared counter ROUNDS times, one addition
 * per 10 ms; when all have, FILE gets "sum S" (S = (N - 1) * ROUNDS) and
 * the process exits. Nothing forks while it waits. Thread stacks are 64 KiB,
 * so that 100,000 threads fit in a small guest.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_long sum;
static atomic_int started, finished;
static long rounds;
static const char *go;

static void *worker(void *arg)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	long i;

	atomic_fetch_add(&started, 1);
	while (go && access(go, F_OK))
		nanosleep(&tick, NULL);
	for (i = 0; i < rounds; i++) {
		atomic_fetch_add(&sum, 1);
		nanosleep(&tick, NULL);
	}
	atomic_fetch_add(&finished, 1);
	for (;;)
		pause();
	return arg;
}

static void say(const char *file, const char *what, long n)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s %ld\n", what, n) < 0 || fclose(f) || rename(tmp, file)) {
		perror(file);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t t;
	long n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: threads N FILE [ROUNDS GO]\n");
		return 2;
	}
	n = atol(argv[1]);
	if (argc > 4) {
		rounds = atol(argv[3]);
		go = argv[4];
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 1; i < n; i++) {
		int err = pthread_create(&t, &attr, worker, NULL);

		if (err) {
			fprintf(stderr, "threads: pthread_create %ld of %ld: error %d\n", i, n, err);
			return 1;
		}
	}
	while (atomic_load(&started) < n - 1)
		usleep(10000);
	say(argv[2], "ready", n);
	if (!go)
		for (;;)
			pause();
	while (atomic_load(&finished) < n - 1)
		usleep(10000);
	say(argv[2], "sum", atomic_load(&sum));
	return 0;
}
