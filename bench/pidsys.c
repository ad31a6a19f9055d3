// SPDX-License-Identifier: GPL-2.0
/*
 * pidsys: what PID allocation costs a whole process or thread lifetime.
 *
 *   pidsys fork N [R]   N x (fork + child _exit + waitpid) in each of
 *                       nproc workers at once; prints forks per second
 *   pidsys thread N [R] N x (pthread_create + pthread_join) in each of
 *                       nproc workers at once; prints threads per second
 *   pidsys many N [R]   start N threads that all stay alive until the
 *                       last has started, then stop and join them all
 *                       (the 2002 seed's test, N = 100000); prints the
 *                       time from the first create to the last join
 *   pidsys lockstat N   N x (fork + _exit + waitpid) in each of nproc
 *                       workers at once, between a clear and a read of
 *                       /proc/lock_stat; prints per fork+exit+wait the
 *                       acquisitions of pidmap_lock, of tasklist_lock and
 *                       of all lock classes together, tasklist_lock's
 *                       hold time, and the five classes acquired most and
 *                       the five contended most
 *
 * Each result is a "bench row" line (bench.h): the median and the min-max
 * over R rounds (third argument, default 5), in the table named by a fourth
 * argument when there is one (so that a guest booted another way gets rows
 * of its own). Times come from CLOCK_MONOTONIC: in a guest run with -icount
 * that is guest instructions, not host time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define LIFETIMES	"PID allocation, whole lifetimes"
#define LOCKS		"lock acquisitions per fork+exit+wait"
#define CLASSES		"lock classes taken most per fork+exit+wait"
#define CONTENDED	"lock classes contended most per fork+exit+wait"
#define HOLD		"lock hold time per fork+exit+wait"

static void die(const char *what)
{
	fprintf(stderr, "pidsys: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *nothing(void *arg)
{
	return arg;
}

static void forks(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
	}
}

static void threads(long n)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		int err = pthread_create(&t, &attr, nothing, NULL);

		if (err) {
			errno = err;
			die("pthread_create");
		}
		pthread_join(t, NULL);
	}
}

/* Run @fn(@n) in nproc worker processes at once; return the seconds. */
static double parallel(void (*fn)(long), long n, int workers)
{
	int go[2], i;
	double t0;
	char c = 0;

	if (pipe(go))
		die("pipe");
	for (i = 0; i < workers; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(go[1]);
			if (read(go[0], &c, 1) != 0)
				_exit(2);
			fn(n);
			_exit(0);
		}
	}
	close(go[0]);
	t0 = now();
	close(go[1]);		/* all workers start */
	for (i = 0; i < workers; i++) {
		int status;

		if (wait(&status) < 0)
			die("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			die("worker failed");
	}
	return now() - t0;
}

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void *waiter(void *arg)
{
	pthread_mutex_lock(&gate_lock);
	while (!gate_open)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	return arg;
}

/* Start @n threads that wait for the last one, then stop them all. */
static double many(long n)
{
	pthread_t *t = calloc(n, sizeof(*t));
	pthread_attr_t attr;
	double t0;

	if (!t)
		die("calloc");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 16 * 1024);
	gate_open = 0;
	t0 = now();
	for (long i = 0; i < n; i++) {
		int err = pthread_create(&t[i], &attr, waiter, NULL);

		if (err) {
			fprintf(stderr, "pidsys: pthread_create %ld: %s\n",
				i, strerror(err));
			exit(1);
		}
	}
	pthread_mutex_lock(&gate_lock);
	gate_open = 1;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return now() - t0;
}

struct lockclass {
	char name[128];
	double acq, con;
};

static int cmp_acq(const void *a, const void *b)
{
	double x = ((const struct lockclass *)a)->acq;
	double y = ((const struct lockclass *)b)->acq;

	return (y > x) - (y < x);
}

static int cmp_con(const void *a, const void *b)
{
	double x = ((const struct lockclass *)a)->con;
	double y = ((const struct lockclass *)b)->con;

	return (y > x) - (y < x);
}

/*
 * /proc/lock_stat: one line per lock class (and a "-R"/"-W" line per side
 * of an rwlock) "name: con-bounces contentions waittime-min waittime-max
 * waittime-total waittime-avg acq-bounces acquisitions holdtime-min
 * holdtime-max holdtime-total holdtime-avg", times in microseconds.
 * Lines of call sites and dashes are skipped.
 */
static void lockstat(long n, int workers)
{
	static struct lockclass cls[8192];
	double pidmap = 0, tasklist = 0, total = 0, hold = 0, hold_w = 0;
	int ncls = 0, i;
	char line[1024];
	FILE *f = fopen("/proc/lock_stat", "w");

	if (!f || fputs("0\n", f) < 0 || fclose(f))
		die("clear /proc/lock_stat (CONFIG_LOCK_STAT=y needed)");
	parallel(forks, n, workers);
	n *= workers;
	f = fopen("/proc/lock_stat", "r");
	if (!f)
		die("/proc/lock_stat");
	while (fgets(line, sizeof(line), f)) {
		char *colon = strstr(line, ": ");
		char name[128];
		double v[12];

		if (!colon || colon - line >= (long)sizeof(name) ||
		    !strchr("0123456789 ", colon[2]))
			continue;
		if (sscanf(colon + 1, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8], &v[9], &v[10], &v[11]) != 12)
			continue;
		if (sscanf(line, " %127[^\n]", name) != 1)
			continue;
		name[strcspn(name, ":")] = 0;
		if (strchr(name, '['))	/* a call site, not a class */
			continue;
		v[7] /= n;
		v[1] /= n;
		v[10] /= n;
		total += v[7];
		if (!strcmp(name, "pidmap_lock"))
			pidmap += v[7];
		if (!strncmp(name, "tasklist_lock", 13)) {
			tasklist += v[7];
			hold += v[10];
			if (!strcmp(name, "tasklist_lock-W"))
				hold_w += v[10];
		}
		if (ncls < 8192) {
			snprintf(cls[ncls].name, sizeof(cls[ncls].name), "%s", name);
			cls[ncls].con = v[1];
			cls[ncls++].acq = v[7];
		}
	}
	fclose(f);
	bench_row(LOCKS, "acq/fork", "lower", &pidmap, 1, "pidmap_lock");
	bench_row(LOCKS, "acq/fork", "lower", &tasklist, 1, "tasklist_lock");
	bench_row(LOCKS, "acq/fork", "lower", &total, 1, "all lock classes");
	bench_row(HOLD, "us/fork", "lower", &hold, 1, "tasklist_lock (read and write)");
	bench_row(HOLD, "us/fork", "lower", &hold_w, 1, "tasklist_lock (write)");
	qsort(cls, ncls, sizeof(*cls), cmp_acq);
	for (i = 0; i < ncls && i < 5; i++)
		bench_row(CLASSES, "acq/fork", "lower", &cls[i].acq, 1, "%s",
			  cls[i].name);
	qsort(cls, ncls, sizeof(*cls), cmp_con);
	for (i = 0; i < ncls && i < 5; i++)
		bench_row(CONTENDED, "contentions/fork", "lower", &cls[i].con, 1, "%s",
			  cls[i].name);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	int workers = sysconf(_SC_NPROCESSORS_ONLN);
	const char *table = argc > 4 ? argv[4] : LIFETIMES;
	const char *plural;
	double v[64];
	int r;

	if (n <= 0 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "usage: pidsys fork|thread|many|lockstat N [ROUNDS [TABLE]]\n");
		return 2;
	}
	if (!strcmp(mode, "lockstat")) {
		lockstat(n, workers);
		return 0;
	}
	for (r = 0; r < rounds; r++) {
		if (!strcmp(mode, "fork"))
			v[r] = workers * n / parallel(forks, n, workers);
		else if (!strcmp(mode, "thread"))
			v[r] = workers * n / parallel(threads, n, workers);
		else if (!strcmp(mode, "many"))
			v[r] = many(n);
		else
			return 2;
	}
	plural = workers == 1 ? "" : "s";
	if (!strcmp(mode, "many"))
		bench_row(table, "s", "lower", v, rounds,
			  "start+stop %ld threads, %d CPU%s", n, workers, plural);
	else
		bench_row(table, "per s", "higher", v, rounds, "%s, %d CPU%s",
			  strcmp(mode, "fork") ? "pthread_create+join" :
			  "fork+exit+wait", workers, plural);
	return 0;
}
