#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the test cases in a kunit.py --json file.

    kunit-count.py [--own SUITE[,SUITE...]] JSON

Prints one line per suite and the totals as "passed failed skipped".
With --own, the totals are followed by the counts of the named top-level
suites alone (exact names; a parameterised case's results count for the
suite it belongs to), as "passed failed skipped own_passed own_failed
own_skipped"; everything else is upstream's.
Exits 1 when no case ran, so that an empty run can never pass.
"""
import argparse
import json
import sys


def walk(group, suite, top, rows):
    """Append (suite, top-level suite, case, status) for every case."""
    for case in group.get('test_cases', []):
        # A suite with no case at all (one that crashed before its first
        # case, or was skipped whole) is a case of the root group.
        rows.append((suite, top or case['name'], case['name'], case['status']))
    for sub in group.get('sub_groups', []):
        walk(sub, sub['name'], top or sub['name'], rows)


def tally(rows):
    """[passed, failed, skipped] of rows; any status but PASS and SKIP fails."""
    c = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    for row in rows:
        c[row[-1] if row[-1] in c else 'FAIL'] += 1
    return [c['PASS'], c['FAIL'], c['SKIP']]


def main():
    ap = argparse.ArgumentParser(description='Count the cases of a kunit.py --json file.')
    ap.add_argument('--own', action='append', default=[], metavar='SUITE[,SUITE...]',
                    help="the series' own top-level suites (exact names)")
    ap.add_argument('json')
    args = ap.parse_args()
    own = {s for arg in args.own for s in arg.split(',') if s}
    with open(args.json) as f:
        data = json.load(f)
    rows = []
    walk(data, data.get('name', ''), None, rows)
    suites = {}
    for row in rows:
        suites.setdefault(row[0], []).append(row)
    for suite, srows in suites.items():
        print('    %-32s %3d passed, %d failed, %d skipped'
              % ((suite,) + tuple(tally(srows))), file=sys.stderr)
    for suite, _, name, status in rows:
        if status not in ('PASS', 'SKIP'):
            print('    FAILED: %s.%s (%s)' % (suite, name, status), file=sys.stderr)
    counts = tally(rows)
    if args.own:
        for suite in sorted(own - {row[1] for row in rows}):
            print('    NOTE own suite did not run: %s' % suite, file=sys.stderr)
        counts += tally([row for row in rows if row[1] in own])
    print(*counts)
    return 1 if counts[0] + counts[1] == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
