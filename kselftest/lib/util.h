/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the kselftest/ suites: time, bounded pipe I/O, small
 * /proc files, checks in helper processes and the fixture's final reap.
 *
 * Include it after kselftest_harness.h as "../lib/util.h".  Everything is
 * static inline, so a suite that does not use a helper gets no
 * -Wunused-function warning.
 */
#ifndef KSELFTEST_LIB_UTIL_H
#define KSELFTEST_LIB_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

/* Fields of /proc/<pid>/stat, numbered as in proc(5). */
enum {
	STAT_STATE	= 3,
	STAT_PPID	= 4,
	STAT_PGRP	= 5,
	STAT_SESSION	= 6,
	STAT_TTY_NR	= 7,
	STAT_TPGID	= 8,
	STAT_NICE	= 19,
};

/* CLOCK_MONOTONIC in milliseconds. */
static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Read exactly @len bytes within @timeout_ms; 0 or a negative errno. */
static inline int read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -ETIMEDOUT;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EPIPE;
		p += n;
		len -= n;
	}
	return 0;
}

/* Write all @len bytes; 0 or -1. */
static inline int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * One read() of the file @path into @buf (at most @size - 1 bytes), NUL
 * terminated: the number of bytes read, or a negative errno.
 */
static inline ssize_t read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* A number from a /proc file; 0 or a negative errno. */
static inline int read_long(const char *path, long *val)
{
	char buf[64];
	ssize_t n = read_text(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	*val = strtol(buf, NULL, 10);
	return 0;
}

/* Write a string to a /proc, /sys or cgroup file; 0 or a negative errno. */
static inline int write_text(const char *path, const char *text)
{
	ssize_t len = strlen(text);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, text, len) != len)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/* Write a number to a /proc file; 0 or a negative errno. */
static inline int write_long(const char *path, long val)
{
	char buf[32];
	int fd, len, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%ld", val);
	errno = 0;
	if (write(fd, buf, len) != len)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/*
 * Field @field of /proc/<pid>/stat, or of /proc/<pid>/task/<tid>/stat if
 * @tid is set, or of /proc/self/stat if both are 0.  The state field is
 * returned as its character.  LONG_MIN if it cannot be read.
 */
static inline long proc_stat(pid_t pid, pid_t tid, int field)
{
	char path[64], buf[1024], *p;
	int i;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	else if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return LONG_MIN;
	p = strrchr(buf, ')');
	if (!p || field < STAT_STATE)
		return LONG_MIN;
	p += 2;
	for (i = STAT_STATE; i < field; i++) {
		p = strchr(p, ' ');
		if (!p)
			return LONG_MIN;
		p++;
	}
	if (field == STAT_STATE)
		return *p;
	return strtol(p, NULL, 10);
}

/* A thread that does nothing until its process exits. */
static inline void *idle_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* SIGKILL every child of the caller, including adopted orphans. */
static inline void kill_children(void)
{
	pid_t self = getpid();
	struct dirent *e;
	DIR *d = opendir("/proc");

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t pid = atoi(e->d_name);

		if (pid > 0 && pid != self &&
		    proc_stat(pid, 0, STAT_PPID) == self)
			kill(pid, SIGKILL);
	}
	closedir(d);
}

/* SIGKILL and reap every child until none is left or @timeout_ms ends. */
static inline void reap_all(int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;

	for (;;) {
		pid_t pid;

		kill_children();
		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (pid < 0 && errno == ECHILD)
			return;
		if (now_ms() > deadline)
			return;
		usleep(10000);
	}
}

/* Checks in helper processes: report on stderr and exit with status 1. */
#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "# pid %d: %s:%d: CHECK(%s) failed, "	\
			"errno %d (%s)\n", getpid(), __func__,		\
			__LINE__, #cond, errno, strerror(errno));	\
		_exit(1);						\
	}								\
} while (0)

#define CHECK_EQ(expr, expected) do {					\
	long __v = (long)(expr), __e = (long)(expected);		\
	if (__v != __e) {						\
		fprintf(stderr, "# pid %d: %s:%d: %s is %ld, expected "	\
			"%s = %ld\n", getpid(), __func__, __LINE__,	\
			#expr, __v, #expected, __e);			\
		_exit(1);						\
	}								\
} while (0)

/* @expr must fail with -1 and errno @err. */
#define CHECK_ERR(expr, err) do {					\
	long __r;							\
	errno = 0;							\
	__r = (long)(expr);						\
	if (__r != -1 || errno != (err)) {				\
		fprintf(stderr, "# pid %d: %s:%d: %s = %ld, errno %d "	\
			"(%s), expected -1 and errno %d (%s)\n",	\
			getpid(), __func__, __LINE__, #expr, __r,	\
			errno, strerror(errno), (err), strerror(err));	\
		_exit(1);						\
	}								\
} while (0)

#endif /* KSELFTEST_LIB_UTIL_H */
