#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results in the TAP that the kselftest guest wrote.

    tap-count.py [--own PREFIX]... [--known FILE] TAP

The guest brackets each program's output with "# selftest: NAME" and
"# exit: NAME RC" and ends with "# guest done". A program counts one
result per "ok"/"not ok" line; a program that exits non-zero without
a failed case, prints fewer results than its plan, or never exits counts
as one more failure, as does kernel warning output and a guest that never
finished. NAME is DIR/PROGRAM. The series' own programs (NAME starts
with an --own PREFIX, e.g. pid/) use kselftest_harness.h and must print a
plan. Any other program may print results without a plan
(pidfd_poll_test) and is then judged by its results and exit code; one
that prints no TAP result at all counts as one result by its exit code,
as kselftest's runner does: 0 passed, 4 skipped, else failed.

FILE lists known failures, "NAME:CASE  reason" for one case (CASE is the
text after the number of its "not ok" line) or "NAME  reason" for a whole
program (its failed cases, exit code and missing results; a death by
signal, a timeout or a program that never exited only if the reason says
"timeout=N").
A known failure is reported as KNOWN and counted as skipped, not failed;
a known case that passed is reported as a note.
Prints "passed failed skipped known"; exits 1 when nothing ran.
"""
import re
import sys

RESULT = re.compile(r'^(not )?ok (\d+) (.*?)(?:\s+#\s*(SKIP|XFAIL)\b(.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)')


def read_known(path):
    """{(program, case or None): reason} from the known-failures file."""
    known = {}
    for n, line in enumerate(open(path), 1):
        line = line.rstrip('\n')
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        m = re.match(r'^(\S+?)(?::(.*?))?(?:\t+| {2,})(.*\S)\s*$', line)
        if not m:
            sys.exit('%s:%d: expected "program[:case]  reason"' % (path, n))
        key = (m.group(1), m.group(2).strip() if m.group(2) else None)
        known[key] = m.group(3)
    return known


def main():
    args = sys.argv[1:]
    known = {}
    own = []
    while len(args) > 2 and args[0] in ('--own', '--known'):
        if args[0] == '--own':
            own.append(args[1])
        else:
            known = read_known(args[1])
        args = args[2:]
    if len(args) != 1 or args[0].startswith('--'):
        sys.exit('usage: tap-count.py [--own PREFIX]... [--known FILE] TAP')
    lines = open(args[0], errors='replace').read().replace('\r', '').splitlines()
    passed = failed = skipped = nknown = 0
    problems = []
    used = set()
    ran = set()
    prog = None
    done = False
    warnings = 0
    leaks = 0

    def is_known(name, case):
        """The reason NAME[:CASE] is a known failure, or None."""
        for key in ((name, case), (name, None)):
            if key in known:
                used.add(key)
                return known[key]
        return None

    def fail(name, case, what, rc=None):
        nonlocal failed, skipped, nknown
        reason = is_known(name, case)
        # A whole-program entry covers a crash or timeout only if it
        # says timeout=N: a known exit 1 must not hide a new hang.
        if reason is not None and case is None and (rc is None or rc >= 124) \
                and 'timeout=' not in reason:
            reason = None
        if reason is None:
            failed += 1
            print('    FAILED %s' % what, file=sys.stderr)
        else:
            skipped += 1
            nknown += 1
            print('    KNOWN %s (%s)' % (what, reason), file=sys.stderr)

    for line in lines:
        if line.startswith('# selftest: '):
            if prog is not None:
                fail(prog['name'], None, '%s: never exited' % prog['name'])
            prog = {'name': line[12:].strip(), 'plan': None, 'seen': 0, 'fail': 0}
            ran.add(prog['name'])
            continue
        if line.startswith('# exit: ') and prog:
            name = prog['name']
            rc = int(line.split()[-1]) if line.split()[-1].isdigit() else -1
            mine = name.startswith(tuple(own)) if own else False
            if not mine and prog['plan'] is None and prog['seen'] == 0:
                if rc == 0:
                    passed += 1
                elif rc == 4:
                    skipped += 1
                    print('    SKIP %s: exit 4' % name, file=sys.stderr)
                else:
                    fail(name, None, '%s: exit %d%s' % (
                        name, rc, ' (timeout)' if rc in (124, 137, 143) else ''), rc)
            elif (prog['plan'] is None and mine) or \
                    (prog['plan'] is not None and prog['seen'] < prog['plan']):
                fail(name, None, '%s: %d of %s results, exit %d%s' % (
                    name, prog['seen'], prog['plan'], rc,
                    ' (timeout)' if rc in (124, 137, 143) else ''), rc)
            elif rc not in (0, 4) and prog['fail'] == 0:
                fail(name, None, '%s: exit %d with no failed case' % (name, rc), rc)
            prog = None
            continue
        if line.startswith('# dmesg warnings: '):
            warnings = int(line.split()[-1])
            continue
        if line.startswith('# kmemleak: '):
            leaks = int(line.split()[2])
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
        case = m.group(3).strip()
        name = '%s: %s' % (prog['name'], case)
        if m.group(4) == 'SKIP':
            skipped += 1
            print('    SKIP %s:%s' % (name, m.group(5)), file=sys.stderr)
        elif m.group(1) and m.group(4) != 'XFAIL':
            prog['fail'] += 1
            fail(prog['name'], case, name)
        else:
            passed += 1
            if (prog['name'], case) in known:
                used.add((prog['name'], case))
                print('    NOTE known failure passed: %s' % name, file=sys.stderr)
    if prog is not None:
        fail(prog['name'], None, '%s: never exited (crash or guest timeout)' % prog['name'])
    if warnings:
        problems.append('guest kernel logged %d warning(s): see the TAP file' % warnings)
    if leaks:
        problems.append('kmemleak reported %d unreferenced object(s): see the TAP file' % leaks)
    if not done:
        problems.append('guest did not finish (no "# guest done")')
    for p in problems:
        print('    FAILED %s' % p, file=sys.stderr)
    failed += len(problems)
    for key in sorted(set(known) - used, key=lambda k: (k[0], k[1] or '')):
        if key[0] in ran:
            print('    NOTE known failure did not occur: %s%s' % (
                key[0], ':' + key[1] if key[1] is not None else ''), file=sys.stderr)
    print(passed, failed, skipped, nknown)
    return 1 if passed + failed + nknown == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
