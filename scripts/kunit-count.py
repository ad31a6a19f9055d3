#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the test cases in a kunit.py --json file.

Prints one line per suite and the totals as "passed failed skipped".
Exits 1 when no case ran, so that an empty run can never pass.
"""
import json
import sys


def walk(group, suite, rows):
    for case in group.get('test_cases', []):
        rows.append((suite, case['name'], case['status']))
    for sub in group.get('sub_groups', []):
        walk(sub, sub['name'], rows)


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    rows = []
    walk(data, data.get('name', ''), rows)
    suites = {}
    for suite, _, status in rows:
        c = suites.setdefault(suite, {'PASS': 0, 'FAIL': 0, 'SKIP': 0})
        key = status if status in c else 'FAIL'
        c[key] += 1
    for suite, c in suites.items():
        print('    %-32s %3d passed, %d failed, %d skipped'
              % (suite, c['PASS'], c['FAIL'], c['SKIP']), file=sys.stderr)
    for suite, name, status in rows:
        if status not in ('PASS', 'SKIP'):
            print('    FAILED: %s.%s (%s)' % (suite, name, status), file=sys.stderr)
    p = sum(c['PASS'] for c in suites.values())
    f = sum(c['FAIL'] for c in suites.values())
    s = sum(c['SKIP'] for c in suites.values())
    print(p, f, s)
    return 1 if p + f == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
