#!/usr/bin/env python3
"""patches/qemu-10.2/ must carry the same changes as patches/qemu/.

    scripts/series-mirror.py [ROOT]
        Check that every hook patch of patches/qemu/ (QEMU 10.0) has its copy
        in patches/qemu-10.2/ (the same number and file name, author, date,
        subject and message) and that, file by file, the copy adds and
        removes the same lines (as multisets: the context and the places
        may differ, that is the rebase).  The only other differences
        allowed are the hand resolutions of patches/qemu-10.2/resolutions
        and the amendments patches/qemu-10.2/amend/NNNN.diff (what patch
        NNNN needs on 10.2 beyond the rebase, folded into it).
        Prints one line per patch; exits 1 on the first difference, naming
        it, with the command that rewrites the copies.

    scripts/series-mirror.py --resolve RESOLUTIONS FILE
        The conflict resolver of scripts/rebase-series-10.2.sh: resolve
        FILE's diff3 conflicts in place (see resolve() below); exits 1
        naming a conflict it cannot resolve.

    scripts/series-mirror.py --amend-todo AMEND-DIR TODO
        The sequence editor of its interactive rebase: after the pick of
        the NNNN-th patch, an exec line folding AMEND-DIR/NNNN.diff into it.

The copies are written by scripts/rebase-series-10.2.sh, so the check
fails when patches/qemu/ changed and nobody reran it.
"""

import collections
import difflib
import email
import email.policy
import os
import re
import sys


def read_resolutions(path):
    """The entries of a resolutions file: dicts with file, ours, base,
    theirs, result (lists of lines)"""
    entries, cur, side = [], None, None
    names = {'<<<': 'ours', '|||': 'base', '===': 'theirs', '>>>': 'result'}
    if not os.path.exists(path):
        return entries
    for n, line in enumerate(open(path).read().split('\n'), 1):
        if line.startswith('@@ '):
            cur = {'file': line[3:].strip(), 'ours': [], 'base': [],
                   'theirs': [], 'result': []}
            entries.append(cur)
            side = None
        elif line[:3] in names and cur is not None:
            side = names[line[:3]]
        elif line == '|' or line.startswith('| '):
            if cur is None or side is None:
                sys.exit('%s:%d: a line outside an entry\'s side' % (path, n))
            cur[side].append(line[2:])
        elif line.strip() and not line.startswith('#'):
            sys.exit('%s:%d: not understood: %r' % (path, n, line))
    return entries


def resolve(resolutions, path):
    """Resolve path's diff3 conflicts in which the patch (theirs) only adds
    lines, or that the resolutions file records:
    - a recorded conflict (its file and three sides exactly): its result;
    - where the base is empty (both sides only added there): 10.2's
      lines, then the patch's;
    - else each run of lines the patch inserts goes after the line of
      10.2's side that is the base line before it: the same line, or where
      10.2 changed that line, the one most like it (at least 75 % alike and
      no other as close), as patch's fuzz would.
    Any other conflict exits 1 naming it."""
    rel = os.path.relpath(path)
    recorded = [e for e in read_resolutions(resolutions) if e['file'] == rel]
    lines = open(path).read().split('\n')

    def fail(start, why):
        sys.exit('%s:%d: %s; resolve it by hand and record it in %s'
                 % (rel, start, why, resolutions))

    def anchor(ours, line, start):
        same = [k for k, l in enumerate(ours) if l == line]
        if len(same) == 1:
            return same[0]
        if same:
            fail(start, 'the line before an insertion, %r, is there %d times'
                 % (line, len(same)))
        r = sorted(((difflib.SequenceMatcher(None, l, line).ratio(), k)
                    for k, l in enumerate(ours)), reverse=True)
        if not r or r[0][0] < 0.75 or (len(r) > 1 and r[1][0] == r[0][0]):
            fail(start, 'no line like %r before an insertion' % line)
        return r[0][1]

    out, i, n, nrec = [], 0, 0, 0
    while i < len(lines):
        if not lines[i].startswith('<<<<<<< '):
            out.append(lines[i])
            i += 1
            continue
        start = i + 1
        ours, base, theirs, part = [], [], [], 'ours'
        i += 1
        while not lines[i].startswith('>>>>>>> '):
            l = lines[i]
            if part == 'ours' and l.startswith('||||||| '):
                part = 'base'
            elif part in ('ours', 'base') and l == '=======':
                part = 'theirs'
            else:
                {'ours': ours, 'base': base, 'theirs': theirs}[part].append(l)
            i += 1
        i += 1
        n += 1
        rec = [e for e in recorded
               if (e['ours'], e['base'], e['theirs']) == (ours, base, theirs)]
        if rec:
            out += rec[0]['result']
            nrec += 1
            continue
        if not base:
            out += ours + theirs
            continue
        ops = difflib.SequenceMatcher(None, base, theirs,
                                      autojunk=False).get_opcodes()
        if any(op not in ('equal', 'insert') for op, *_ in ops):
            fail(start, 'the patch changes lines that 10.2 changed too')
        ins = []
        for op, i1, i2, j1, j2 in ops:
            if op != 'insert':
                continue
            if i1 == 0:
                at = anchor(ours, base[0], start)
            else:
                at = anchor(ours, base[i1 - 1], start) + 1
            ins.append((at, theirs[j1:j2]))
        for at, new in sorted(ins, key=lambda x: x[0], reverse=True):
            ours[at:at] = new
        out += ours
    open(path, 'w').write('\n'.join(out))
    print('%s: %d conflict(s) resolved%s'
          % (rel, n, ' (%d as patches/qemu-10.2/resolutions records)' % nrec
             if nrec else ''))


def parse_patch(path, headers=True):
    """(headers, message, {file: (Counter of removed, Counter of added)})"""
    text = open(path).read()
    body = None
    if headers:
        head, _, rest = text.partition('\n---\n')
        msg = email.message_from_string(head, policy=email.policy.default)
        subject = re.sub(r'^\[PATCH[^\]]*\]\s*', '', str(msg['Subject']))
        headers = (str(msg['From']), str(msg['Date']), subject)
        body = msg.get_payload()
    files = {}
    cur = None
    in_diff = False
    for line in text.split('\n'):
        if line.startswith('diff --git '):
            cur = line.split(' b/', 1)[1]
            files[cur] = (collections.Counter(), collections.Counter())
            in_diff = False
        elif cur is None:
            continue
        elif line.startswith('@@ '):
            in_diff = True
        elif not in_diff:
            continue
        elif line.startswith('-'):
            files[cur][0][line[1:]] += 1
        elif line.startswith('+'):
            files[cur][1][line[1:]] += 1
    return headers, body, files


def diff_lines(a, b):
    """(Counter of lines removed, Counter of lines added) from a to b"""
    rem, add = collections.Counter(), collections.Counter()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(
            None, a, b, autojunk=False).get_opcodes():
        if op != 'equal':
            rem.update(a[i1:i2])
            add.update(b[j1:j2])
    return rem, add


def read_amendment(path):
    """{file: (Counter of removed, Counter of added)} of a git diff"""
    return parse_patch(path, headers=False)[2]


def amend_todo(amend_dir, todo):
    """rebase-series-10.2.sh's sequence editor: after the pick of the
    NNNN-th patch, an exec that folds amend/NNNN.diff into it"""
    out, n = [], 0
    for line in open(todo):
        out.append(line)
        if line.startswith('pick '):
            n += 1
            d = os.path.join(amend_dir, '%04d.diff' % n)
            if os.path.exists(d):
                out.append('exec git apply --index %s && git -c user.name='
                           'smmulab-rebase -c user.email=rebase@smmulab.invalid '
                           'commit -q --amend --no-edit\n' % d)
    with open(todo, 'w') as f:
        f.writelines(out)


def mirror(root):
    old_dir = os.path.join(root, 'patches/qemu')
    new_dir = os.path.join(root, 'patches/qemu-10.2')
    fix = 'run scripts/rebase-series-10.2.sh'
    old = sorted(f for f in os.listdir(old_dir) if re.match(r'\d{4}-.*\.patch$', f))
    new = sorted(f for f in os.listdir(new_dir) if re.match(r'\d{4}-.*\.patch$', f)) \
        if os.path.isdir(new_dir) else []
    if old != new:
        sys.exit('patches/qemu-10.2/ does not have the patches of patches/qemu/ '
                 '(%s): %s' % (', '.join(sorted(set(old) ^ set(new))) or 'order', fix))
    unused = read_resolutions(os.path.join(new_dir, 'resolutions'))
    amend_dir = os.path.join(new_dir, 'amend')
    amends = sorted(os.listdir(amend_dir)) if os.path.isdir(amend_dir) else []
    for a in amends:
        if not re.match(r'\d{4}\.diff$', a) or int(a[:4]) > len(old):
            sys.exit('patches/qemu-10.2/amend/%s: no patch %s in patches/qemu/'
                     % (a, a[:4]))
    for num, name in enumerate(old, 1):
        oh, ob, of = parse_patch(os.path.join(old_dir, name))
        nh, nb, nf = parse_patch(os.path.join(new_dir, name))
        amended = ''
        if '%04d.diff' % num in amends:
            # the amendment's lines counted on top of the 10.0 patch: a
            # line it removes that the patch adds is no longer added
            for f, (arem, aadd) in read_amendment(
                    os.path.join(amend_dir, '%04d.diff' % num)).items():
                orem, oadd = of.setdefault(f, (collections.Counter(),
                                               collections.Counter()))
                for line, k in arem.items():
                    gone = min(k, oadd[line])
                    oadd[line] -= gone
                    orem[line] += k - gone
                oadd.update(aadd)
                of[f] = (+orem, +oadd)
            amended = ' (amended: amend/%04d.diff)' % num
        if oh != nh or ob != nb:
            sys.exit('%s: its author, date, subject or message differ in '
                     'patches/qemu-10.2/: %s' % (name, fix))
        if set(of) != set(nf):
            sys.exit('%s: touches %s in patches/qemu/ but %s in '
                     'patches/qemu-10.2/: %s'
                     % (name, sorted(of), sorted(nf), fix))
        nres = 0
        for f in sorted(of):
            orem, oadd = of[f]
            nrem, nadd = nf[f]
            # a recorded resolution: its 10.2 change counted as the 10.0 one
            for e in list(unused):
                if e['file'] != f:
                    continue
                r12, a12 = diff_lines(e['ours'], e['result'])
                r10, a10 = diff_lines(e['base'], e['theirs'])
                if not (r12 - nrem) and not (a12 - nadd) and \
                        not (r10 - orem) and not (a10 - oadd):
                    nrem = nrem - r12 + r10
                    nadd = nadd - a12 + a10
                    unused.remove(e)
                    nres += 1
            for what, a, b in (('removes', orem, nrem), ('adds', oadd, nadd)):
                if a != b:
                    only = list((a - b).elements())[:1] + list((b - a).elements())[:1]
                    sys.exit('%s: %s other lines in %s on 10.2 (first: %r): %s'
                             % (name, what, f, only[0], fix))
        print('%s: the same changes on 10.2%s%s'
              % (name[:4] + ' ' + nh[2],
                 ' (%d recorded resolution)' % nres if nres else '', amended))
    if unused:
        sys.exit('patches/qemu-10.2/resolutions: an entry for %s is used by '
                 'no patch (stale): remove it' % unused[0]['file'])
    print('patches/qemu-10.2/ mirrors patches/qemu/: %d patches' % len(old))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == '--resolve':
        resolve(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == '--amend-todo':
        amend_todo(sys.argv[2], sys.argv[3])
    elif len(sys.argv) <= 2 and not sys.argv[1:2] == ['--resolve']:
        root = sys.argv[1] if len(sys.argv) == 2 else \
            os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
        mirror(root)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
