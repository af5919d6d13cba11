#!/usr/bin/python3
"""ctf-compare.py DIR REPORT [NAME]: compare a CTF directory written by
tdat-to-ctf, read through babeltrace2's Python bindings (bt2), with
trace-cmd report -R -t of the same trace.dat (REPORT, a file; - for stdin).

Every event is compared with the report's line of the same buffer and CPU
in turn: its time stamp to the nanosecond, CPU, buffer, event name, pid
(common_pid of the event context) and every field of the payload, value by
value: integers (decimal or 0x hex in the report, compared modulo the
field's width; symbols of trace-cmd's plugins, "sym+0xoff", through the
directory's tdat/kallsyms), strings, and arrays (the report's ARRAY[..]
bytes against the elements in the trace's byte order).  Lost events
(CPU:N [LOST M EVENTS]) are compared with the discarded-events messages.

Prints one line: NAME events N (trace-cmd M) fields checked F equal E
timestamps equal T lost L (trace-cmd K); then the first differences.  Exit
status 0 when everything is equal, 1 otherwise, 2 on a usage error.
"""
import bisect
import os
import re
import sys

try:
    import bt2
except ImportError:
    sys.stderr.write("ctf-compare.py: no python3-bt2\n")
    sys.exit(2)

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}): (\S+?):(.*)$')
LOST = re.compile(r'^(?:(\S+): )?\s*CPU:(\d+) \[(?:(\d+) )?EVENTS DROPPED\]')
SYM = re.compile(r'^([^\s+]+)(?:\+0x([0-9a-f]+))?$')


def parse_report(path):
    """{(buffer, cpu): [(ts, event, pid, fieldtext)]}, lost per key."""
    out, lost = {}, {}
    f = sys.stdin if path == '-' else open(path, errors='surrogateescape')
    for line in f:
        line = line.rstrip('\n')
        m = LOST.match(line)
        if m:
            k = (m.group(1) or '', int(m.group(2)))
            # "[EVENTS DROPPED]": how many is not known, the CTF says 1
            lost[k] = lost.get(k, 0) + (int(m.group(3)) if m.group(3)
                                        else 1)
            continue
        buf = ''
        rest = line
        if line[:1] not in ('', ' '):
            b = re.match(r'^(\S+):\s+(.*)$', line)
            if b and LINE.match(b.group(2)):
                buf, rest = b.group(1), b.group(2)
        m = LINE.match(rest)
        if not m:
            continue
        ts = int(m.group(4)) * 1000000000 + int(m.group(5))
        out.setdefault((buf, int(m.group(3))), []).append(
            (ts, m.group(6), int(m.group(2)), m.group(7).lstrip(' ')))
    return out, lost


def load_printk(d):
    """{address: string} of the directory's tdat/printk."""
    out = {}
    try:
        with open(os.path.join(d, 'tdat', 'printk'), errors='replace') as f:
            for line in f:
                m = re.match(r'^0x([0-9a-fA-F]+) : "(.*)"$', line.rstrip('\n'))
                if m:
                    s = m.group(2)
                    out[int(m.group(1), 16)] = s[:-2] if s.endswith('\\n') \
                        else s
    except OSError:
        pass
    return out


def load_kallsyms(d):
    p = os.path.join(d, 'tdat', 'kallsyms')
    addrs, names = [], []
    try:
        with open(p, errors='replace') as f:
            for line in f:
                w = line.split()
                if len(w) >= 3:
                    try:
                        addrs.append(int(w[0], 16))
                        names.append(w[2])
                    except ValueError:
                        pass
    except OSError:
        pass
    z = sorted(zip(addrs, names))
    return [a for a, _ in z], [n for _, n in z]


class Cmp:
    def __init__(self, d):
        with open(os.path.join(d, 'metadata'), errors='replace') as f:
            self.big = re.search(r'byte_order\s*=\s*be\s*;', f.read()) \
                is not None
        self.syms = load_kallsyms(d)
        self.printk = load_printk(d)
        self.size0 = 0
        self.past = 0

    def sym_ok(self, v, text):
        m = SYM.match(text)
        addrs, names = self.syms
        if not m or not addrs:
            return False
        i = bisect.bisect_right(addrs, v) - 1
        if i < 0:
            return False
        # the last symbol at that address whose name matches
        j = i
        while j >= 0 and addrs[j] == addrs[i]:
            if names[j] == m.group(1):
                # %ps prints the name alone, %pS with the offset
                return m.group(2) is None or \
                    v - addrs[j] == int(m.group(2), 16)
            j -= 1
        return False

    def num(self, v, bits, base, text):
        mask = (1 << bits) - 1
        t = text.strip()
        if t == '(nil)':
            return v & mask == 0
        try:
            # (Python's int() also takes "d_add" in base 16: digits only)
            if re.fullmatch(r'-?0[xX][0-9a-fA-F]+', t):
                n = int(t, 16)
            else:
                n = int(t, 10) if re.fullmatch(r'-?[0-9]+', t) else None
                # trace-cmd prints some fields of base 16 (%x in the
                # print format) in hex without 0x
                if (n is None or (n & mask) != (v & mask)) and \
                        base == 16 and re.fullmatch(r'[0-9a-fA-F]+', t):
                    n = int(t, 16)
                if n is None:
                    raise ValueError(t)
        except ValueError:
            # a symbol (the plugins'), or a string a pointer field
            # points to (trace_printk's strings, "const char *")
            return self.sym_ok(v & mask, t) or \
                self.printk.get(v & mask) == t
        return (n & mask) == (v & mask)

    def elem_bytes(self, fld):
        """The array's elements as the trace's bytes."""
        fc = fld.cls.element_field_class
        if isinstance(fc, bt2._StringFieldClassConst):
            return None
        bits = fc.field_value_range
        n = bits // 8
        out = bytearray()
        for e in fld:
            v = int(e) & ((1 << bits) - 1)
            out += v.to_bytes(n, 'big' if self.big else 'little')
        return bytes(out)

    def value(self, fld, text):
        if isinstance(fld, bt2._StringFieldConst):
            s = str(fld)
            # a string ending in a newline ends trace-cmd's line
            if text == s or (s.endswith('\n') and text == s[:-1]):
                return True
            if text.startswith('ARRAY[') and text.endswith(']'):
                b = bytes(int(x, 16) for x in text[6:-1].split(', ') if x)
                b = b.split(b'\0', 1)[0]
                return b.decode('utf-8', 'replace') == s
            return False
        if isinstance(fld, (bt2._StaticArrayFieldConst,
                            bt2._DynamicArrayFieldConst)):
            b = self.elem_bytes(fld)
            if text.startswith('ARRAY[') and text.endswith(']'):
                want = bytes(int(x, 16) for x in text[6:-1].split(', ')
                             if x)
                k = min(len(want), len(b)) if b is not None else 0
                if (k and len(want) != len(b) and
                        isinstance(fld, bt2._DynamicArrayFieldConst) and
                        want[:k] == b[:k]):
                    # a fixed array whose record says how many entries it
                    # has (kernel_stack's caller[8] and size): the CTF has
                    # that many, trace-cmd prints the declared 8, bytes
                    # past the entries or short of them
                    self.past += 1
                    return True
                return b == want
            if b is not None and fld.cls.element_field_class. \
                    field_value_range == 8:
                # trace-cmd prints a u8 array that is text up to its
                # first NUL as a string
                return b.split(b'\0', 1)[0] == text.encode(
                    'utf-8', 'surrogateescape')
            if text == '0' and isinstance(fld, bt2._DynamicArrayFieldConst):
                # a field of size 0 ("u32 buf" of bprint): trace-cmd
                # reads it as the number 0, the CTF has its elements
                self.size0 += 1
                return True
            return False
        if isinstance(fld, (bt2._IntegerFieldConst,)):
            return self.num(int(fld), fld.cls.field_value_range,
                            int(fld.cls.preferred_display_base), text)
        return False


def split_fields(names, text):
    """The report's "a=1 b=x y c=3" as values by the known names."""
    vals = {}
    pos = 0
    for i, n in enumerate(names):
        key = n + '='
        if i == 0:
            if not text.startswith(key):
                return None
            start = len(key)
        else:
            k = text.find(' ' + key, pos)
            if k < 0:
                return None
            vals[names[i - 1]] = text[pos:k]
            start = k + 1 + len(key)
        pos = start
    if names:
        vals[names[-1]] = text[pos:].rstrip(' ')
    return vals


def payload(ev):
    """(name, field) of the payload but the lengths of its sequences."""
    p = ev.payload_field
    if p is None:
        return []
    items = list(p.items())
    seqs = {k for k, v in items if isinstance(v, bt2._DynamicArrayFieldConst)
            or isinstance(v, bt2._StringFieldConst)}
    out = []
    for k, v in items:
        m = re.match(r'^_(.*)_length$', k)
        if m and m.group(1) in seqs:
            continue
        out.append((k, v))
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write("usage: ctf-compare.py DIR REPORT [NAME]\n")
        sys.exit(2)
    d, rep = sys.argv[1], sys.argv[2]
    name = sys.argv[3] if len(sys.argv) > 3 else os.path.basename(
        d.rstrip('/'))
    want, want_lost = parse_report(rep)
    c = Cmp(d)
    pos = {}
    events = fields = equal = tsok = 0
    lost = {}
    first_lost = [0]
    diffs = []
    buffers = None

    def diff(msg):
        if len(diffs) < 10:
            diffs.append(msg)

    for msg in bt2.TraceCollectionMessageIterator(d):
        if isinstance(msg, bt2._StreamBeginningMessageConst) and \
                buffers is None:
            env = msg.stream.trace.environment
            b = env.get('buffers')
            buffers = str(b).split(',') if b is not None else ['']
            continue
        if isinstance(msg, bt2._DiscardedEventsMessageConst):
            s = msg.stream
            k = (buffers[s.cls.id] if buffers and s.cls.id < len(buffers)
                 else '', None)
            cpu = None
            try:
                cpu = int(s.name.rsplit('cpu', 1)[1])
            except (ValueError, IndexError, AttributeError):
                pass
            k = (k[0], cpu)
            if pos.get(k, 0) == 0:
                # before the CPU's first event: trace-cmd does not say
                # it lost events before its first page
                first_lost[0] += msg.count or 1
                continue
            lost[k] = lost.get(k, 0) + (msg.count or 1)
            continue
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        events += 1
        cpu = int(ev.packet.context_field['cpu_id'])
        sid = ev.stream.cls.id
        buf = buffers[sid] if buffers and sid < len(buffers) else ''
        key = (buf, cpu)
        i = pos.get(key, 0)
        pos[key] = i + 1
        lst = want.get(key, [])
        if i >= len(lst):
            diff('%s cpu %d: event %d (%s) past trace-cmd\'s %d' %
                 (buf or 'top', cpu, i, ev.name, len(lst)))
            continue
        ts, evname, pid, text = lst[i]
        got_ts = msg.default_clock_snapshot.ns_from_origin
        if got_ts == ts:
            tsok += 1
        else:
            diff('%s cpu %d event %d: time %d, trace-cmd %d' %
                 (buf or 'top', cpu, i, got_ts, ts))
        if ev.name.split(':', 1)[-1] != evname:
            diff('%s cpu %d event %d: %s, trace-cmd %s' %
                 (buf or 'top', cpu, i, ev.name, evname))
            continue
        ctx = ev.specific_context_field
        if ctx is not None and 'common_pid' in ctx and \
                int(ctx['common_pid']) != pid:
            diff('%s cpu %d event %d: pid %d, trace-cmd %d' %
                 (buf or 'top', cpu, i, int(ctx['common_pid']), pid))
        fl = payload(ev)
        vals = split_fields([k for k, _ in fl], text)
        for k, v in fl:
            fields += 1
            t = vals.get(k) if vals else None
            if t is not None and c.value(v, t):
                equal += 1
            else:
                diff('%s cpu %d event %d %s %s: %s, trace-cmd %r' %
                     (buf or 'top', cpu, i, ev.name, k, str(v)[:80],
                      (t or '')[:80]))
    tc_events = sum(len(v) for v in want.values())
    for key, lst in want.items():
        if pos.get(key, 0) < len(lst):
            diff('%s cpu %d: trace-cmd has %d events, the CTF %d' %
                 (key[0] or 'top', key[1], len(lst), pos.get(key, 0)))
    nlost, tc_lost = sum(lost.values()), sum(want_lost.values())
    print('%s events %d (trace-cmd %d) fields checked %d equal %d '
          'timestamps equal %d lost %d (trace-cmd %d)%s' %
          (name, events, tc_events, fields, equal, tsok, nlost, tc_lost,
           (' (%d size-0 fields trace-cmd prints as 0)' % c.size0
            if c.size0 else '') +
           (' (%d sequences of a length other than the ARRAY trace-cmd '
            'prints, equal where both have bytes)' % c.past
            if c.past else '') +
           (' (%d lost before a CPU\'s first event, which trace-cmd does '
            'not show)' % first_lost[0] if first_lost[0] else '')))
    for m in diffs:
        print('  ' + m)
    ok = (events == tc_events and fields == equal and tsok == events and
          nlost == tc_lost and not diffs)
    sys.exit(0 if ok else 1)


main()
