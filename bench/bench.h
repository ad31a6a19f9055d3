/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h: the one line a guest program prints per benchmark row, read by
 * scripts/bench-table.py (through bench-system.sh, which puts
 * "<kernel> smp=<n> " in front):
 *
 *   bench row table="T" name="N" unit="U" better=higher|lower value=V [min=A max=B]
 *
 * One line is this boot's value of row N of table T: the median of the
 * boot's rounds, and their min-max when there was more than one round.
 * The table script groups the lines of all boots by table and row name,
 * in the order they first appear, and compares pristine with patched.
 * A new row is one bench_row() call; nothing else needs to change.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static inline int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* key="s", with any '"' of s turned into '\'' so that the line parses. */
static inline void bench_str(const char *key, const char *s)
{
	printf(" %s=\"", key);
	for (; *s; s++)
		putchar(*s == '"' ? '\'' : *s);
	putchar('"');
}

/*
 * bench_row(table, unit, better, v, n, fmt, ...): print one row. v[0..n-1]
 * are the boot's rounds (sorted here): value is v[n / 2] after sorting,
 * min and max are printed when n > 1. better is "higher" or "lower"; the
 * row name is printf(fmt, ...).
 */
static inline void __attribute__((format(printf, 6, 7)))
bench_row(const char *table, const char *unit, const char *better,
	  double *v, int n, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	qsort(v, n, sizeof(*v), bench_cmp);
	printf("bench row");
	bench_str("table", table);
	bench_str("name", name);
	bench_str("unit", unit);
	printf(" better=%s value=%.8g", better, v[n / 2]);
	if (n > 1)
		printf(" min=%.8g max=%.8g", v[0], v[n - 1]);
	putchar('\n');
}

#endif
