#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Side-by-side table of prio_user lines from pristine and patched boots.

Input lines: "<kernel> prio_user threads=N set=MED (MIN-MAX) get=MED (MIN-MAX)".
For each thread count and call, the median over all boots of the per-boot
medians for each kernel, their min-max, and the patched/pristine ratio.
"""
import re
import statistics
import sys

LINE = re.compile(r'^(\w+) prio_user threads=(\d+) set=(\d+) \S+ get=(\d+) ')


def main():
    data = {}
    for line in open(sys.argv[1]):
        m = LINE.match(line)
        if not m:
            continue
        kernel, n, s, g = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
        data.setdefault((n, 'setpriority'), {}).setdefault(kernel, []).append(s)
        data.setdefault((n, 'getpriority'), {}).setdefault(kernel, []).append(g)
    print('%-34s %22s %22s %10s' % ('PRIO_USER, 1 thread of the user',
                                     'pristine ns/call', 'patched ns/call', 'ratio'))
    for (n, call), k in sorted(data.items()):
        a, b = k.get('pristine', []), k.get('patched', [])
        if not a or not b:
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        print('%-34s %10d (%d-%d) %10d (%d-%d) %10.3g' % (
            '%s, %d other threads' % (call, n), ma, min(a), max(a),
            mb, min(b), max(b), mb / ma))


if __name__ == '__main__':
    main()
