#!/usr/bin/env python3
"""The kit's default path is stock's object code (issue 28).

Compiles stock 6.12's arm-smmu-v3.c with the kit kernel's own kbuild
command (the kit's config and flags, stock's sources and headers) and
compares every function of its .text with the same function in the kit's
object, BUILDDIR/linux/obj/.../arm-smmu-v3.o, as it runs with every static
key as compiled: all off, so every variant at its default and the
counters off (arm_smmu_v3.cmdq_stats=off).  Two probe-time functions that
read the parameters and switch the keys are left out (SETUP below).

A function passes when, walking it and stock's in step from their entries
(and from code only a br reaches), every path runs the same instructions:

  - exactly, one by one ("the same"), or
  - the same instructions between two decisions (conditional branches,
    boot-patched alternatives), once register numbers, stack slots and
    their order within that stretch are set aside ("the same, scheduled
    and allocated otherwise"): any branch GCC is given to compile changes
    its register allocation and schedule, even a patched-out one.

Set aside in both: nops (static-key sites, loop alignment), the kit's
static-key sites and the code only their branches reach (the variants),
unconditional branches (where a block lies), and addresses: a branch
inside a function by where it leads, a call by its callee's name, data by
the object it lands in (a relocation, or GCC's section anchor plus an
offset, resolved to the symbol or the string).  Inlining, calls, frame
sizes, struct offsets, constants, memory accesses and branch conditions'
kinds are compared: an inlined helper left out of line, a counter on the
default path, a struct that grew, fail.

TAP output.  A failure names the function and its first difference on
one line; the listings of each failing function, side by side as a
unified diff, are in BUILDDIR/logs/stock-code/diff.txt.

  tests/stock-code.py BUILDDIR [--kit OBJ] [--stock OBJ] [--keep DIR]

--kit compares another kit object (compiled with the same command),
--stock a stock object already compiled, --keep keeps the stock object
compiled in DIR.
"""
import collections
import difflib
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

OBJDUMP = 'aarch64-linux-gnu-objdump'
REL = 'drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.o'
SRC = 'drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c'

# Probe-time code that the kit changes by design: it reads the parameters,
# switches the static keys, prints the variant line and sets up what a
# variant needs.  None of it runs per command.
SETUP = {
    'arm_smmu_device_probe',     # the variant line, the keys, debugfs
    'arm_smmu_cmdq_init',        # cmdq_alloc=add's per-queue state
}

# The default path itself: these must exist in both and be compared
# (whatever else the objects hold)
CORE = [
    'arm_smmu_cmdq_issue_cmdlist',
    'arm_smmu_cmdq_batch_add',
    'arm_smmu_cmdq_write_entries',
    '__arm_smmu_cmdq_poll_set_valid_map',
    'arm_smmu_tlb_inv_walk',
    'arm_smmu_iotlb_sync',
    '__arm_smmu_tlb_inv_range',
]

n = 0
fails = 0


def ok(msg):
    global n
    n += 1
    print('ok %d - %s' % (n, msg))


def notok(msg):
    global n, fails
    n += 1
    fails += 1
    print('not ok %d - %s' % (n, msg))


def bail(msg):
    print('1..0 # SKIP ' + msg)
    sys.exit(0)


# --- ELF64 little-endian, as much as this needs ---------------------------

class Elf:
    def __init__(self, path):
        with open(path, 'rb') as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b'\x7fELF' or d[4] != 2 or d[5] != 1:
            raise ValueError('%s: not a 64-bit little-endian ELF' % path)
        shoff, = struct.unpack_from('<Q', d, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
        self.sec = []
        for i in range(shnum):
            name, typ, flags, _addr, off, size, link, info, _al, entsize = \
                struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize)
            self.sec.append(dict(name=name, type=typ, flags=flags, off=off,
                                 size=size, link=link, info=info,
                                 entsize=entsize))
        strtab = self.sec[shstrndx]
        for s in self.sec:
            s['name'] = self.cstr(strtab['off'] + s['name'])
        self.byname = {s['name']: i for i, s in enumerate(self.sec)}
        self.syms = []
        for s in self.sec:
            if s['type'] != 2:      # SHT_SYMTAB
                continue
            st = self.sec[s['link']]
            for k in range(s['size'] // 24):
                name, info, _other, shndx, value, size = \
                    struct.unpack_from('<IBBHQQ', d, s['off'] + k * 24)
                self.syms.append(dict(name=self.cstr(st['off'] + name),
                                      type=info & 0xf, shndx=shndx,
                                      value=value, size=size))
        # the named symbols of each section, in address order
        self.insec = {}
        for y in self.syms:
            if y['type'] in (3, 4) or not y['name'] or \
               y['name'].startswith('$'):       # section, file, mapping
                continue
            self.insec.setdefault(y['shndx'], []).append(y)
        for v in self.insec.values():
            v.sort(key=lambda y: (y['value'], -y['size']))

    def cstr(self, off):
        end = self.data.index(b'\0', off)
        return self.data[off:end].decode('latin-1')

    def rela(self, secname):
        """(offset, symbol, type, addend) of the relocations of secname"""
        out = []
        for s in self.sec:
            if s['type'] == 4 and self.sec[s['info']]['name'] == secname:
                for k in range(s['size'] // 24):
                    off, info, add = struct.unpack_from(
                        '<QQq', self.data, s['off'] + k * 24)
                    out.append((off, self.syms[info >> 32], info & 0xffffffff,
                                add))
        return out


def norm_name(name):
    name = re.sub(r'^\.L\d+$', '.L', name)
    name = re.sub(r'^(__UNIQUE_ID_\D+)\d+$', r'\1', name)
    return re.sub(r'\.\d+', '', name)


def quote(s):
    s = s.encode('unicode_escape').decode('ascii')
    return '"%s"' % (s if len(s) <= 72 else s[:72] + '...')


def resolve(elf, secname, addr):
    """what section secname + addr is: a string, an object + offset"""
    if secname not in elf.byname:
        return '%s+%#x' % (secname, addr)
    i = elf.byname[secname]
    s = elf.sec[i]
    if s['flags'] & 0x20 and addr < s['size']:      # SHF_STRINGS
        return quote(elf.cstr(s['off'] + addr))
    best = None
    for y in elf.insec.get(i, []):
        if y['value'] > addr:
            break
        if best is None or y['value'] > best['value'] or \
           y['value'] + y['size'] > addr:
            best = y
    if best is None:
        return '%s+%#x' % (secname, addr)
    name = norm_name(best['name'])
    if name == '__func__' and s['type'] == 1:
        return quote(elf.cstr(s['off'] + best['value']))
    delta = addr - best['value']
    return '<%s%s>' % (name, '+%#x' % delta if delta else '')


def alternatives(elf):
    """arm64's alternatives that patch control flow at boot, as
    {.text offset of the instruction: where it goes once patched}: an
    alternative_has_cap_likely() is a b that becomes a nop (then it falls
    through), an alternative_has_cap_unlikely() a nop that becomes a b
    (its replacement, a b in .text's subsection 1).  Either way is
    compared.  (struct alt_instr: orig, replacement or callback, cpucap,
    lengths; 12 bytes)"""
    text = elf.byname.get('.text')
    if text is None or '.altinstructions' not in elf.byname:
        return {}
    sec = elf.sec[elf.byname['.altinstructions']]
    tdata = elf.sec[text]
    ent = {}
    for off, sym, typ, add in elf.rela('.altinstructions'):
        if off % 12 in (0, 4):
            ent.setdefault(off - off % 12, [None, None])[off % 12 // 4] = \
                (sym, add)
    out = {}
    for off, (orig, alt) in ent.items():
        if orig is None or alt is None or orig[0]['shndx'] != text:
            continue
        a = orig[0]['value'] + orig[1]
        cap, = struct.unpack_from('<H', elf.data, sec['off'] + off + 8)
        olen = elf.data[sec['off'] + off + 10]
        if olen != 4:
            continue
        word, = struct.unpack_from('<I', elf.data, tdata['off'] + a)
        if cap & 0x8000:                        # a callback: b -> nop
            if word & 0xfc000000 == 0x14000000:
                out[a] = a + 4
        elif alt[0]['shndx'] == text and word == 0xd503201f:   # nop -> b
            r = alt[0]['value'] + alt[1]
            new, = struct.unpack_from('<I', elf.data, tdata['off'] + r)
            if new & 0xfc000000 == 0x14000000:
                imm = new & 0x3ffffff
                out[a] = r + ((imm - (1 << 26) if imm & (1 << 25) else imm) << 2)
    return out


def static_key_sites(elf):
    """.text offsets of the static-key sites (struct jump_entry: code,
    target, key, the first two relative to .text)"""
    sites = {}
    text = elf.byname.get('.text')
    for off, sym, typ, add in elf.rela('__jump_table'):
        if sym['shndx'] == text and typ == 261 and off % 16 in (0, 4):
            sites.setdefault(off - off % 16, [None, None])[off % 16 // 4] = \
                sym['value'] + add
    return {code: target for code, target in sites.values()}


# --- disassembly ----------------------------------------------------------

def disassemble(path, elf):
    """the functions of .text: their instructions, each [address, mnemonic,
    operands, (relocation type, symbol, addend) or None], within the
    symbol's size (what follows the last function is alternatives'
    replacements, .text's subsection 1)"""
    text = elf.byname.get('.text')
    size = {y['name']: y['value'] + y['size'] for y in elf.syms
            if y['type'] == 2 and y['shndx'] == text}
    out = subprocess.run([OBJDUMP, '-dr', '--no-show-raw-insn', '-j', '.text',
                          path], capture_output=True, text=True, check=True)
    funcs = {}
    cur = None
    for line in out.stdout.splitlines():
        m = re.match(r'^([0-9a-f]+) <(.+)>:$', line)
        if m:
            cur = funcs[m.group(2)] = []
            continue
        if cur is None:
            continue
        m = re.match(r'^\s+([0-9a-f]+):\t(\S+)(?:\t(.*))?$', line)
        if m:
            args = re.sub(r'\s*//.*$', '', m.group(3) or '').strip()
            cur.append([int(m.group(1), 16), m.group(2), args, None])
            continue
        m = re.match(r'^\s+[0-9a-f]+: (R_AARCH64_\S+)\s+(\S+?)(?:\+0x([0-9a-f]+))?$',
                     line)
        if m and cur:
            cur[-1][3] = (m.group(1), m.group(2), int(m.group(3) or '0', 16))
    for name, insns in funcs.items():
        if name in size:
            insns[:] = [x for x in insns if x[0] < size[name]]
    return {name: insns for name, insns in funcs.items() if insns}


UNCOND = ('b', 'ret', 'br', 'eret')    # brk: a WARN, which goes on
CONDBR = re.compile(r'^(b\.\w+|cbz|cbnz|tbz|tbnz)$')
NODEST = re.compile(r'^(st(r|u|p|n|l|add|clr|eor|set|smax|smin|umax|umin)\w*|'
                    r'cmp|cmn|tst|ccmp|ccmn|fcmp\w*|b|b\.\w+|bl|blr|br|ret|'
                    r'cbz|cbnz|tbz|tbnz|prfm|msr|dmb|dsb|isb|nop|wfe|wfi|sev|'
                    r'sevl|yield|brk|hint|hvc|smc|svc|at|dc|ic|tlbi|autiasp|'
                    r'paciasp|bti)$')
REG = re.compile(r'\b([xw])(\d+)\b')


def target(args):
    m = re.search(r'\b([0-9a-f]+) <[^>]*>', args)
    return int(m.group(1), 16) if m else None


class Func:
    """A function's instructions and control flow, as the kit runs it with
    every static key at its compiled default: a site that is a nop falls
    through, one that is a b (a key on by default) jumps"""

    def __init__(self, elf, name, insns, sites, alts):
        self.name = name
        self.insns = insns
        self.base = insns[0][0]
        at = {ins[0]: i for i, ins in enumerate(insns)}
        self.succ = []
        self.jump = [None] * len(insns)     # an unconditional b: its target
        self.sites = set()
        self.alt = set()
        for i, (a, op, args, rel) in enumerate(insns):
            t = target(args) if rel is None else None
            t = at.get(t)
            s = []
            if a in sites:
                self.sites.add(i)
                s = [t] if op == 'b' and t is not None else [i + 1]
                self.jump[i] = s[0]
            elif a in alts:
                # as compiled, then as patched at boot
                s = [t if op == 'b' else i + 1, at.get(alts[a])]
                s = [k for k in s if k is not None]
                self.alt.add(i)
            elif op == 'b' and t is not None:
                s = [t]
                self.jump[i] = t
            else:
                if op not in UNCOND:
                    s.append(i + 1)
                if CONDBR.match(op) and t is not None:
                    s.append(t)
            self.succ.append([k for k in s if k < len(insns)])
        preds = [0] * len(insns)
        for s in self.succ:
            for k in s:
                preds[k] += 1
        keyt = {at[t] for t in sites.values() if t in at}
        # entries: the function's, and code no branch reaches (a switch's
        # cases, reached by br through a table); not static-key targets
        self.roots = [0] + [i for i in range(1, len(insns))
                            if preds[i] == 0 and i not in keyt]
        self.text = self.render(elf)

    def render(self, elf):
        """each instruction as text without addresses: branch targets
        inside the function as @, data as the object it lands in (through
        a relocation, or a register that holds a section anchor, as a
        must-dataflow over the control flow finds it)"""
        n = len(self.insns)
        state = [None] * n
        todo = [0]
        state[0] = {}
        while True:
            if not todo:
                # code only a br reaches (a switch's cases): nothing known
                todo = [r for r in self.roots if state[r] is None]
                for r in todo:
                    state[r] = {}
                if not todo:
                    break
            i = todo.pop()
            out = self.transfer(i, state[i])
            for k in self.succ[i]:
                if state[k] is None:
                    state[k] = dict(out)
                    todo.append(k)
                else:
                    met = {r: v for r, v in state[k].items() if out.get(r) == v}
                    if met != state[k]:
                        state[k] = met
                        todo.append(k)
        return [self.text_of(elf, i, state[i] or {}) for i in range(n)]

    def transfer(self, i, st):
        a, op, args, rel = self.insns[i]
        before = st or {}
        st = dict(before)
        written = dests(op, args)
        copy = re.match(r'^x(\d+), x(\d+)$', args)
        src = st.get(int(copy.group(2))) if op == 'mov' and copy else None
        for r in written:
            st.pop(r, None)
        m = re.match(r'^x(\d+), x(\d+), #((?:0x)?[0-9a-f]+)$', args)
        if rel is not None and rel[0] == 'R_AARCH64_ADD_ABS_LO12_NC' and written:
            st[min(written)] = (rel[1], rel[2])
        elif src:
            st[int(copy.group(1))] = src
        elif op == 'add' and m and int(m.group(2)) in before:
            sec, base = before[int(m.group(2))]
            st[int(m.group(1))] = (sec, base + int(m.group(3), 0))
        return st

    def text_of(self, elf, i, anchors):
        a, op, args, rel = self.insns[i]
        text = args
        if rel is not None:
            typ, sym, add = rel
            if sym in elf.byname:
                what = resolve(elf, sym, add)
            else:
                what = '%s%s' % (norm_name(sym), '+%#x' % add if add else '')
            text = re.sub(r'\b[0-9a-f]+ <[^>]*>', '', text)
            text = re.sub(r':lo12:\S+|#0x0\b|#0\b', '', text).strip(', ')
            if sym in elf.byname and typ == 'R_AARCH64_ADR_PREL_PG_HI21':
                text += ' page(%s)' % sym
            elif sym in elf.byname and typ == 'R_AARCH64_ADD_ABS_LO12_NC' \
                    and not what.startswith('"'):
                # a section anchor, or an object used as one: its uses say
                # which object
                text += ' lo12(%s)' % sym
            else:
                text += ' ' + what
            return '%s %s' % (op, text)
        t = target(args)
        if t is not None and op != 'bl' and \
           self.insns[0][0] <= t <= self.insns[-1][0]:
            text = re.sub(r'\b[0-9a-f]+ <[^>]*>', '@', text)
        else:
            text = re.sub(r'\b[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>',
                          lambda m: '<%s%s>' % (norm_name(m.group(1)),
                                                m.group(2) or ''), text)
        m = re.search(r'\[x(\d+)(?:, #(-?(?:0x)?[0-9a-f]+))?\]', text)
        if m and int(m.group(1)) in anchors:
            sec, base = anchors[int(m.group(1))]
            off = int(m.group(2) or '0', 0)
            text = text[:m.start()] + '[%s]' % resolve(elf, sec, base + off) + \
                text[m.end():]
        m = re.match(r'^x(\d+), x(\d+), #((?:0x)?[0-9a-f]+)$', text)
        if op == 'add' and m and int(m.group(2)) in anchors:
            # an object's address from its section anchor: where the kit's
            # own data moved the object, the anchor itself may point there
            # and this add be left out, so it is not compared (what uses
            # the address says which object)
            return None
        if op == 'bl':
            live = ['x%d=%s' % (r, resolve(elf, *anchors[r]))
                    for r in range(8) if r in anchors]
            if live:
                text += ' [' + ', '.join(live) + ']'
        return '%s %s' % (op, text) if text else op

    def skip(self, i):
        """the next instruction that does something from i on: past nops,
        static-key sites and unconditional branches (where a block lies)"""
        seen = set()
        while i is not None and i < len(self.insns) and i not in seen:
            seen.add(i)
            if i in self.alt:
                return i
            if (self.insns[i][1] == 'nop' or self.text[i] is None) and \
               i not in self.sites:
                i += 1
            elif self.jump[i] is not None:
                i = self.jump[i]
            else:
                return i
        return i if i is not None and i < len(self.insns) else None

    def succs(self, i):
        """successors of a compared instruction: fall-through first"""
        return self.succ[i]

    def off(self, i):
        return self.insns[i][0] - self.base if i is not None else None


def dests(op, args):
    """registers (x0..x30) an instruction writes"""
    regs = [int(m.group(2)) for m in REG.finditer(args.split('[')[0])]
    out = set()
    if op in ('stxr', 'stlxr', 'stxrb', 'stlxrb', 'stxrh', 'stlxrh', 'stxp',
              'stlxp'):
        out.update(regs[:1])
    elif NODEST.match(op):
        pass
    elif op.startswith(('ldp', 'ldxp', 'ldaxp', 'ldnp', 'casp')):
        out.update(regs[:2])
    elif re.match(r'^(ld(add|clr|eor|set|smax|smin|umax|umin)|swp)', op):
        out.update(regs[1:2])
    else:
        out.update(regs[:1])
    m = re.search(r'\[(x\d+)[^\]]*\](!|, #)', args)
    if m:
        out.add(int(m.group(1)[1:]))
    if op in ('bl', 'blr'):
        out.update(range(19))
        out.add(30)
    return out


COND = {'eq': 'eq', 'ne': 'eq', 'cs': 'u', 'hs': 'u', 'cc': 'u', 'lo': 'u',
        'hi': 'u', 'ls': 'u', 'ge': 's', 'lt': 's', 'gt': 's', 'le': 's',
        'mi': 'mi', 'pl': 'mi', 'vs': 'vs', 'vc': 'vs'}


def abstract(text):
    """an instruction without what register allocation, scheduling and
    block layout choose: register numbers, stack slots, the sense of a
    condition (a branch inverted, or a compare with its operands swapped)"""
    text = re.sub(r'\b([xw])([0-9]|[12][0-9]|30)\b', r'\1?', text)
    text = re.sub(r'\[sp, #-?(0x)?[0-9a-f]+\](?!!)', '[sp, #?]', text)
    text = re.sub(r'^(cbz|cbnz)\b', 'cb?z', text)
    text = re.sub(r'^(tbz|tbnz)\b', 'tb?z', text)
    text = re.sub(r'^b\.([a-z]{2})\b', lambda m: 'b.' + COND.get(m.group(1), m.group(1)),
                  text)
    text = re.sub(r', ([a-z]{2})$', lambda m: ', ' + COND.get(m.group(1), m.group(1)),
                  text)
    return text


def block(f, i, jumps=True):
    """from instruction i on to the next branch that decides something (a
    conditional branch, a patched alternative), or the end: the abstracted
    instructions run, unconditional branches taken included, as a multiset,
    the terminator and its successors"""
    body = collections.Counter()
    seen = set()
    while i is not None and i < len(f.insns) and i not in seen:
        seen.add(i)
        op = f.insns[i][1]
        if CONDBR.match(op) or i in f.alt or op in ('ret', 'br', 'eret'):
            return body, i, list(f.succ[i])
        if i not in f.sites and op != 'nop' and f.text[i] is not None and \
           (jumps or f.jump[i] is None):
            body[abstract(f.text[i])] += 1
        nxt = f.succ[i]
        i = nxt[0] if nxt else None
    return body, None, []


BRANCH_SENSE = {'cbz': 1, 'cbnz': -1, 'tbz': 1, 'tbnz': -1,
                'b.eq': 1, 'b.ne': -1, 'b.mi': 1, 'b.pl': -1,
                'b.vs': 1, 'b.vc': -1}


def compare_blocks(fa, fb, jumps=True):
    """the same paths through both functions, each stretch between two
    decisions with the same instructions once register numbers, stack
    slots and their order within the stretch are set aside; a branch on an
    unsigned or signed order may have its operands swapped, so both ways
    its successors can pair are tried.  Returns (None, n) or
    ((stock index, kit index, why), n)"""
    memo = set()
    first = []

    def walk(i, j):
        if (i, j) in memo:
            return True
        memo.add((i, j))
        if i is None or j is None:
            if i != j:
                first.append((i, j, 'one ends, the other goes on'))
                return False
            return True
        ba, ta, sa = block(fa, i, jumps)
        bb, tb, sb = block(fb, j, jumps)
        if ba != bb:
            first.append((i, j, 'a stretch with other instructions: the kit '
                          'has %s' % ', '.join(
                              ['%d more %r' % (c, k) for k, c in
                               (bb - ba).most_common(3)] +
                              ['%d fewer %r' % (c, k) for k, c in
                               (ba - bb).most_common(3)])))
            return False
        if (ta is None) != (tb is None):
            first.append((i, j, 'one ends, the other goes on'))
            return False
        if ta is None:
            return True
        xa, xb = abstract(fa.text[ta]), abstract(fb.text[tb])
        if xa != xb or len(sa) != len(sb):
            first.append((ta, tb, 'another decision'))
            return False
        if len(sa) < 2:
            return all(walk(p, q) for p, q in zip(sa, sb))
        oa, ob = fa.insns[ta][1], fb.insns[tb][1]
        if oa in BRANCH_SENSE and ob in BRANCH_SENSE:
            ways = [BRANCH_SENSE[oa] == BRANCH_SENSE[ob]]
        elif ta in fa.alt or tb in fb.alt:
            ways = [True]
        else:
            ways = [True, False]
        for same in ways:
            keep = set(memo)
            pairs = [(sa[0], sb[0]), (sa[1], sb[1])] if same else \
                [(sa[0], sb[1]), (sa[1], sb[0])]
            if all(walk(p, q) for p, q in pairs):
                return True
            memo.clear()
            memo.update(keep)
        return False

    ok = walk(0, 0) and all(walk(p, q) for p, q in zip(fa.roots[1:], fb.roots[1:]))
    if ok and len(fa.roots) == len(fb.roots):
        return None, len(memo)
    if ok:
        return (None, None, 'other entries (code reached by br)'), len(memo)
    return first[0], len(memo)


def compare(fa, fb):
    """walk both functions in step from their entries: on every path the
    same instructions in the same order, branch conditions and the
    direction of every conditional branch included; where the blocks lie
    aside.  Returns (None, compared) or ((stock index, kit index, why),
    compared)"""
    pairs = list(zip(fa.roots, fb.roots))
    if len(fa.roots) != len(fb.roots):
        return (fa.roots[min(len(fa.roots), len(fb.roots)) - 1], None,
                '%d entries in stock (the function\'s and code reached by br), '
                '%d in the kit' % (len(fa.roots), len(fb.roots))), 0
    seen = set()
    done_a = set()
    todo = [(fa.skip(i), fb.skip(j)) for i, j in pairs]
    todo.reverse()
    while todo:
        i, j = todo.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i is None or j is None:
            if i != j:
                return (i, j, 'one ends, the other goes on'), len(done_a)
            continue
        if fa.text[i] != fb.text[j]:
            return (i, j, 'different instructions'), len(done_a)
        done_a.add(i)
        sa, sb = fa.succs(i), fb.succs(j)
        if len(sa) != len(sb):
            return (i, j, 'different successors'), len(done_a)
        for k in range(len(sa) - 1, -1, -1):
            todo.append((fa.skip(sa[k]), fb.skip(sb[k])))
    return None, len(done_a)


def compile_stock(B, pristine, out):
    """stock's driver with the kit kernel's kbuild command"""
    O = os.path.join(B, 'linux/obj')
    W = os.path.join(B, 'linux/src')
    cmdf = os.path.join(O, os.path.dirname(REL),
                        '.' + os.path.basename(REL) + '.cmd')
    with open(cmdf) as f:
        first = f.readline()
    m = re.match(r'^(?:saved)?cmd_' + re.escape(REL) + r' := (.*)$', first)
    if not m or ' -o %s ' % REL not in m.group(1):
        raise RuntimeError('no kbuild command for %s in %s' % (REL, cmdf))
    cmd = m.group(1).strip()
    cmd = re.sub(r'^ccache ', '', cmd)
    cmd = re.sub(r'-Wp,-MMD,\S+', '', cmd)
    cmd = cmd.replace(' -o %s ' % REL, ' -o %s ' % out)
    if W + '/' + SRC not in cmd:
        raise RuntimeError('%s: the command does not compile %s/%s' %
                           (cmdf, W, SRC))
    cmd = cmd.replace(W + '/', pristine + '/')
    r = subprocess.run(['bash', '-c', cmd], cwd=O, capture_output=True,
                       text=True)
    if r.returncode:
        raise RuntimeError('stock compile failed:\n' + r.stderr[-2000:])


def main(argv):
    args = argv[1:]
    opt = {}
    while len(args) > 1 and args[-2] in ('--kit', '--stock', '--keep'):
        opt[args[-2]] = args[-1]
        args = args[:-2]
    if len(args) != 1:
        sys.exit(__doc__)
    B = os.path.abspath(args[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not shutil.which(OBJDUMP):
        bail('no %s (binutils-aarch64-linux-gnu)' % OBJDUMP)
    kit = opt.get('--kit', os.path.join(B, 'linux/obj', REL))
    if not os.path.exists(kit):
        bail('no kit object %s (build the kernel)' % kit)
    try:
        series = open(os.path.join(B, 'guest/series')).read().strip()
    except OSError:
        series = ''
    if not series.startswith('applied'):
        bail("the kernel in %s was built without the kit's series (%s)" %
             (B, series or 'no guest/series'))
    logd = os.path.join(B, 'logs/stock-code')
    os.makedirs(logd, exist_ok=True)
    tmp = opt.get('--keep') or tempfile.mkdtemp(prefix='stock-code.')
    os.makedirs(tmp, exist_ok=True)
    try:
        stock = opt.get('--stock')
        if not stock:
            try:
                pristine = open(os.path.join(B, 'linux/src/.smmulab-stamp')
                                ).read().split()[0]
            except (OSError, IndexError):
                pristine = ''
            if not os.path.isfile(os.path.join(pristine, SRC)):
                pristine = subprocess.run(
                    [os.path.join(root, 'scripts/linux-src.sh')],
                    capture_output=True, text=True).stdout.strip().split('\n')[-1]
            stock = os.path.join(tmp, 'stock.o')
            try:
                compile_stock(B, pristine, stock)
            except (OSError, RuntimeError) as e:
                notok('stock 6.12 driver compiled with the kit\'s command: %s' % e)
                print('1..%d' % n)
                return 1
            ok("stock driver (%s) compiled with the kit kernel's command" %
               pristine)
        e_s, e_k = Elf(stock), Elf(kit)
        f_s, f_k = disassemble(stock, e_s), disassemble(kit, e_k)
        s_s, s_k = static_key_sites(e_s), static_key_sites(e_k)
        alt_s, alt_k = alternatives(e_s), alternatives(e_k)
        names = sorted(set(f_s) - SETUP)
        missing = [f for f in CORE if f not in f_s or f not in f_k]
        if missing:
            notok('the default path\'s functions in both objects: missing %s' %
                  ', '.join('%s (%s)' % (f, 'stock' if f not in f_s else 'kit')
                            for f in missing))
        else:
            ok('the default path\'s functions in both objects: %s' %
               ', '.join(CORE))
        bad = []
        report = []
        exact = []
        relaxed = []
        laid = []
        for f in names:
            if f not in f_k:
                bad.append('%s: in stock\'s object, not in the kit\'s '
                           '(inlined into its callers, or renamed)' % f)
                continue
            a = Func(e_s, f, f_s[f], s_s, alt_s)
            b = Func(e_k, f, f_k[f], s_k, alt_k)
            why, _ = compare(a, b)
            if why is None:
                verdict = 'the same'
                exact.append(f)
            else:
                why, _ = compare_blocks(a, b)
                if why is None:
                    verdict = 'the same, scheduled and allocated otherwise'
                    relaxed.append(f)
                elif compare_blocks(a, b, jumps=False)[0] is None:
                    verdict = 'the same, scheduled, allocated and laid ' \
                        'out otherwise (%s)' % why[2].split(': ', 1)[-1]
                    laid.append(f)
                    why = None
                else:
                    verdict = 'DIFFERENT'
            if f in CORE or why:
                print('# %s: stock %#x bytes, kit %#x bytes, %d static-key '
                      'site(s): %s' % (f, 4 * len(a.insns), 4 * len(b.insns),
                                       len(b.sites), verdict))
            if why is None:
                continue
            i, j, what = why
            sa = "+%#x '%s'" % (a.off(i), a.text[i]) if i is not None \
                else '(end)'
            sb = "+%#x '%s'" % (b.off(j), b.text[j]) if j is not None \
                else '(end)'
            bad.append('%s: %s; stock %s, kit %s' % (f, what, sa, sb))
            report.append('== %s: %s; stock %s, kit %s\n' % (f, what, sa, sb) +
                          '\n'.join(difflib.unified_diff(
                              ['%5x %s' % (a.off(k), t)
                               for k, t in enumerate(a.text)],
                              ['%5x %s' % (b.off(k), t)
                               for k, t in enumerate(b.text)],
                              'stock', 'kit', lineterm='', n=3)))
        diff = os.path.join(logd, 'diff.txt')
        with open(diff, 'w') as fd:
            fd.write('\n\n'.join(report) + '\n' if report else '')
        for line in bad:
            print('# ' + line)
        if bad:
            notok('%d of %d functions differ from stock\'s (static keys '
                  'off); first %s (all: %s)' % (len(bad), len(names), bad[0],
                                                diff))
        else:
            ok('the default path is stock\'s code: %d functions, %d the '
               'same, %d the same scheduled and allocated otherwise (%s), '
               '%d also laid out otherwise (%s); left out: %s; the kit\'s '
               'own: %d' %
               (len(names), len(exact), len(relaxed), ', '.join(relaxed),
                len(laid), ', '.join(laid) or '-',
                ', '.join(sorted(SETUP & set(f_s))),
                len(set(f_k) - set(f_s))))
    finally:
        if not opt.get('--keep'):
            shutil.rmtree(tmp, ignore_errors=True)
    print('1..%d' % n)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
