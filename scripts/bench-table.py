#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Side-by-side tables of bench-system.sh's raw lines, pristine vs patched.

Input lines start with "<kernel> smp=<n> " followed by a line of
bench/pidsys.c or bench/prio_user.c. Each boot gives one value per row
(the median of its rounds); a table cell is the median over the boots
and their min-max. The ratio is patched/pristine of the medians, with
its spread: the lowest and highest ratio any pair of boots gives.
"""
import re
import statistics
import sys

PIDSYS = re.compile(r'^(\w+) smp=(\d+) pidsys (fork|thread) n=\d+ cpus=\d+ per_s=(\d+) ')
MANY = re.compile(r'^(\w+) smp=(\d+) pidsys many threads=(\d+) cpus=\d+ s=([\d.]+) ')
PRIO = re.compile(r'^(\w+) smp=(\d+) prio_user threads=(\d+) set=(\d+) \S+ get=(\d+) ')
LOCKS = re.compile(r'^(\w+) smp=\d+ pidsys lockstat forks=(\d+) pidmap_lock=([\d.]+) '
                   r'tasklist_lock=([\d.]+) all=([\d.]+)')
CLASS = re.compile(r'^(\w+) smp=\d+ pidsys lockclass (.+) ([\d.]+)$')


def table(title, unit, rows, better):
    print('%-44s %24s %24s %20s' % (title, 'pristine ' + unit, 'patched ' + unit,
                                    'ratio (spread)'))
    for name, k in rows:
        a, b = k.get('pristine', []), k.get('patched', [])
        if not a or not b:
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        lo, hi = min(b) / max(a), max(b) / min(a)
        fmt = '%.3g' if ma < 100 else '%.0f'
        cell = lambda m, v: (fmt % m) + ' (' + (fmt % min(v)) + '-' + (fmt % max(v)) + ')'
        print('%-44s %24s %24s %20s' % (name, cell(ma, a), cell(mb, b),
                                        '%.3g (%.3g-%.3g)' % (mb / ma, lo, hi)))
    print('  (%s)' % better)
    print()


def main():
    sysrows, prio, locks, classes = {}, {}, {}, {}
    for line in open(sys.argv[1]):
        line = line.rstrip('\n')
        m = PIDSYS.match(line)
        if m:
            kernel, smp, mode, v = m.groups()
            name = '%s per s, -smp %s' % (
                'fork+exit+wait' if mode == 'fork' else 'pthread_create+join', smp)
            sysrows.setdefault(name, {}).setdefault(kernel, []).append(float(v))
            continue
        m = MANY.match(line)
        if m:
            kernel, smp, n, v = m.groups()
            name = 'start+stop %s threads (s), -smp %s' % (n, smp)
            sysrows.setdefault(name, {}).setdefault(kernel, []).append(float(v))
            continue
        m = PRIO.match(line)
        if m:
            kernel, smp, n, s, g = m.groups()
            for call, v in (('setpriority', s), ('getpriority', g)):
                name = '%s, %s other threads' % (call, n)
                prio.setdefault((int(n), call), (name, {}))[1].setdefault(
                    kernel, []).append(float(v))
            continue
        m = LOCKS.match(line)
        if m:
            kernel = m.group(1)
            for name, v in (('pidmap_lock', m.group(3)), ('tasklist_lock', m.group(4)),
                            ('all lock classes', m.group(5))):
                locks.setdefault(name, {})[kernel] = float(v)
            continue
        m = CLASS.match(line)
        if m:
            classes.setdefault(m.group(1), []).append((m.group(2), float(m.group(3))))
    if sysrows:
        table('PID allocation, whole lifetimes', 'value', sorted(sysrows.items()),
              'per s: higher is better, ratio > 1 favours patched; '
              'start+stop: lower is better, ratio < 1 favours patched')
    if prio:
        table('PRIO_USER, 1 thread of the user', 'ns/call',
              [prio[k] for k in sorted(prio)], 'lower is better')
    if locks:
        print('%-44s %16s %16s' % ('lock acquisitions per fork+exit+wait',
                                   'pristine', 'patched'))
        for name, k in locks.items():
            print('%-44s %16s %16s' % (name, '%.2f' % k.get('pristine', 0),
                                       '%.2f' % k.get('patched', 0)))
        print()
        for kernel in ('pristine', 'patched'):
            print('most taken per fork+exit+wait, %s: %s' % (kernel, ', '.join(
                '%s %.2f' % c for c in classes.get(kernel, [])[:8])))


if __name__ == '__main__':
    main()
