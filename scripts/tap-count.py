#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results in the TAP that the kselftest guest wrote.

The guest brackets each program's output with "# selftest: NAME" and
"# exit: NAME RC" and ends with "# guest done". A program counts one
result per "ok"/"not ok" line; a program that exits non-zero without
a failed case, prints fewer results than its plan, or never exits counts
as one more failure, as does kernel warning output and a guest that never
finished. Prints "passed failed skipped"; exits 1 when nothing ran.
"""
import re
import sys

RESULT = re.compile(r'^(not )?ok (\d+) (.*?)(?:\s+#\s*(SKIP|XFAIL)\b(.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)')


def main():
    lines = open(sys.argv[1], errors='replace').read().replace('\r', '').splitlines()
    passed = failed = skipped = 0
    problems = []
    prog = None
    done = False
    warnings = 0
    for line in lines:
        if line.startswith('# selftest: '):
            prog = {'name': line[12:].strip(), 'plan': None, 'seen': 0, 'fail': 0}
            continue
        if line.startswith('# exit: ') and prog:
            rc = int(line.split()[-1]) if line.split()[-1].isdigit() else -1
            if prog['plan'] is None or prog['seen'] < prog['plan']:
                problems.append('%s: %d of %s results, exit %d' % (
                    prog['name'], prog['seen'], prog['plan'], rc))
            elif rc not in (0, 4) and prog['fail'] == 0:
                problems.append('%s: exit %d with no failed case' % (prog['name'], rc))
            prog = None
            continue
        if line.startswith('# dmesg warnings: '):
            warnings = int(line.split()[-1])
            continue
        if line.startswith('# guest done'):
            done = True
            continue
        if prog is None:
            continue
        m = PLAN.match(line)
        if m and prog['plan'] is None:
            prog['plan'] = int(m.group(1))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        prog['seen'] += 1
        name = '%s: %s' % (prog['name'], m.group(3))
        if m.group(4) == 'SKIP':
            skipped += 1
            print('    SKIP %s:%s' % (name, m.group(5)), file=sys.stderr)
        elif m.group(1) and m.group(4) != 'XFAIL':
            failed += 1
            prog['fail'] += 1
            print('    FAILED %s' % name, file=sys.stderr)
        else:
            passed += 1
    if prog is not None:
        problems.append('%s: never exited (crash or guest timeout)' % prog['name'])
    if warnings:
        problems.append('guest kernel logged %d warning(s): see the TAP file' % warnings)
    if not done:
        problems.append('guest did not finish (no "# guest done")')
    for p in problems:
        print('    FAILED %s' % p, file=sys.stderr)
    failed += len(problems)
    print(passed, failed, skipped)
    return 1 if passed + failed == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
