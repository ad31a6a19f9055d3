#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Side-by-side tables of bench rows, pristine vs patched.

Reads the files named (stdin without any), as bench-system.sh writes them:

  <kernel> smp=<n> bench row table="T" name="N" unit="U" better=higher|lower
                             value=V [min=A max=B]

(one line), where "bench row ..." is what bench/bench.h's bench_row()
prints in the guest. Values are bare words or in double quotes. The
kernel is "pristine" or "patched"; only what comes before a "-" counts,
as bench-system.sh names them ("patched-lockstat" is "patched").

One line is one boot's value of one row (min and max, the spread within
the boot, are checked and not used). Lines are grouped by table, then by
row name, in the order they first appear. A cell is the median over the
boots and their min-max; the ratio is patched/pristine of the medians,
with its spread: the lowest and highest ratio any pair of boots gives. A
row only one kernel has shows "-" on the other side. Under each table, a
note says which direction is better.

Leading and trailing blanks do not count. Other lines are ignored; a
line whose first, second or third word is "bench row" and does not parse
is reported on stderr and left out. The exit status stays 0 (a
benchmark, not a test).
"""
import fileinput
import math
import re
import statistics
import sys

KERNELS = ('pristine', 'patched')
ROW = re.compile(r'(\S+\s+){0,2}bench row(\s|$)')
LINE = re.compile(r'(\S+) smp=\d+ bench row(\s.*)?')
FIELD = re.compile(r'\s+(\w+)=(?:"([^"]*)"|([^\s"]+))')
STRINGS = ('table', 'name', 'unit', 'better')
NUMBERS = ('value', 'min', 'max')
FAVOURS = {'higher': '>', 'lower': '<'}


def number(key, text):
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not math.isfinite(v):
        raise ValueError('%s=%s is not a number' % (key, text))
    return v


def parse(line):
    """(kernel, fields) of a bench row line, None for any other line;
    ValueError says what is wrong with a malformed one."""
    if not ROW.match(line):
        return None
    m = LINE.fullmatch(line)
    if not m:
        raise ValueError('expected "<kernel> smp=<n> bench row key=value ..."')
    kernel = m.group(1).split('-')[0]
    if kernel not in KERNELS:
        raise ValueError('kernel %s is neither pristine nor patched' % m.group(1))
    rest, pos, f = m.group(2) or '', 0, {}
    while rest[pos:].strip():
        fm = FIELD.match(rest, pos)
        if not fm:
            raise ValueError('cannot read "%s"' % rest[pos:].strip())
        key, text = fm.group(1), fm.group(2) if fm.group(2) is not None else fm.group(3)
        if key not in STRINGS + NUMBERS:
            raise ValueError('unknown key %s' % key)
        if key in f:
            raise ValueError('%s given twice' % key)
        f[key] = number(key, text) if key in NUMBERS else text
        pos = fm.end()
    missing = [k for k in STRINGS if not f.get(k)] + ['value'] * ('value' not in f)
    if missing:
        raise ValueError('no %s' % ', '.join(missing))
    if f['better'] not in FAVOURS:
        raise ValueError('better=%s: higher or lower' % f['better'])
    if ('min' in f) != ('max' in f):
        raise ValueError('min and max go together')
    if not f.get('min', f['value']) <= f['value'] <= f.get('max', f['value']):
        raise ValueError('value is not within min-max')
    return kernel, f


def fmt(v, m):
    """v as the cells of a row whose size is m show it."""
    return ('%.3g' if abs(m) < 100 else '%.0f') % v


def cell(v, m):
    if not v:
        return '-'
    spread = ' (%s-%s)' % (fmt(min(v), m), fmt(max(v), m)) if len(v) > 1 else ''
    return fmt(statistics.median(v), m) + spread


def ratio(a, b):
    if not a or not b or statistics.median(a) == 0:
        return '-'
    r = statistics.median(b) / statistics.median(a)
    if len(a) * len(b) == 1:
        return '%.3g' % r
    hi = max(b) / min(a) if min(a) else math.inf
    return '%.3g (%.3g-%.3g)' % (r, min(b) / max(a), hi)


def note(rows):
    """Which direction is better, per unit when the table has both."""
    units = {}
    for row in rows.values():
        units.setdefault(row['better'], [])
        if row['unit'] not in units[row['better']]:
            units[row['better']].append(row['unit'])
    text = ['%s is better, ratio %s 1 favours patched' % (b, FAVOURS[b]) for b in units]
    if len(units) == 1:
        return text[0]
    return '; '.join('%s: %s' % (', '.join(u), t) for u, t in zip(units.values(), text))


def table(title, rows):
    lines = [(title, 'unit') + KERNELS + ('ratio (spread)',)]
    for name, row in rows.items():
        a, b = (row['values'][k] for k in KERNELS)
        m = statistics.median(a or b)
        lines.append((name, row['unit'], cell(a, m), cell(b, m), ratio(a, b)))
    widths = [max(len(line[i]) for line in lines) for i in range(5)]
    for line in lines:
        print('   '.join([line[0].ljust(widths[0]), line[1].ljust(widths[1])] +
                         [c.rjust(w) for c, w in zip(line[2:], widths[2:])]).rstrip())
    print('  (%s)' % note(rows))
    print()


def main():
    tables = {}
    with fileinput.input(sys.argv[1:]) as lines:
        for line in lines:
            line = line.strip()
            try:
                parsed = parse(line)
                if parsed is None:
                    continue
                kernel, f = parsed
                rows = tables.setdefault(f['table'], {})
                row = rows.setdefault(f['name'], {
                    'unit': f['unit'], 'better': f['better'],
                    'values': {k: [] for k in KERNELS}})
                if (row['unit'], row['better']) != (f['unit'], f['better']):
                    raise ValueError('unit=%s better=%s, earlier lines: unit=%s better=%s' % (
                        f['unit'], f['better'], row['unit'], row['better']))
                row['values'][kernel].append(f['value'])
            except ValueError as e:
                print('%s:%d: malformed bench row (%s): %s' % (
                    lines.filename(), lines.filelineno(), e, line), file=sys.stderr)
    for title, rows in tables.items():
        table(title, rows)


if __name__ == '__main__':
    main()
