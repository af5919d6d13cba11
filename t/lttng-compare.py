#!/usr/bin/python3
"""lttng-compare.py DIR REPORT [NAME]: compare a real LTTng kernel trace
(a CTF directory), read through babeltrace2's Python bindings (bt2), with
trace-cmd report -R -t of the trace.dat tdat-cat wrote of it (REPORT, a
file; - for stdin).

Each data stream is read on its own (no muxer: babeltrace2 2.0's stops at
the first packet whose end overlaps the next one's beginning, as in
LTTng 2.1's traces), its CPU the packets' cpu_id, and each event is
compared with the report's next line of that CPU: its time stamp to the
nanosecond, its name (as tdat maps it: sched_switch stays, irq_softirq_X
is softirq_X, syscall_entry_X sys_enter_X...), its pid (the task running:
followed through sched_switch, as tdat does) and its fields.  A passed
through event must have every payload field in the report, value for
value (integers modulo their width, strings, arrays and sequences of
integers against the report's ARRAY[] bytes; a sequence's length field is
left out); an event mapped back to the kernel's has the report's fields
filled from LTTng's of the same name (pid from tid, a priority plus 100
as lttng-modules takes it off): each is compared, and its LTTng fields the
kernel's event has not are counted apart.

Prints one line: NAME events N (trace-cmd M) fields checked F equal E
timestamps equal T pids equal P, left out L; then the first differences.
Exit status 0 when everything is equal, 1 otherwise, 2 on a usage error.
"""
import re
import sys

try:
    import bt2
except ImportError:
    sys.stderr.write("lttng-compare.py: no python3-bt2\n")
    sys.exit(2)

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}): (\S+?):(.*)$')
MAPPED = {
    'sched_switch', 'sched_wakeup', 'sched_waking', 'sched_wakeup_new',
    'sched_migrate_task', 'sched_process_free', 'sched_process_exit',
    'sched_process_wait', 'sched_wait_task', 'sched_process_fork',
    'sched_process_exec', 'sched_stat_runtime', 'sched_stat_wait',
    'sched_stat_sleep', 'sched_stat_iowait', 'sched_stat_blocked',
    'sched_pi_setprio', 'sched_kthread_stop', 'sched_kthread_stop_ret',
    'irq_handler_entry', 'irq_handler_exit', 'softirq_entry',
    'softirq_exit', 'softirq_raise', 'cpu_idle', 'cpu_frequency'}
ALIAS = {'irq_softirq_entry': 'softirq_entry',
         'irq_softirq_exit': 'softirq_exit',
         'irq_softirq_raise': 'softirq_raise',
         'power_cpu_idle': 'cpu_idle',
         'power_cpu_frequency': 'cpu_frequency'}
WAKEUP = {'sched_wakeup', 'sched_waking', 'sched_wakeup_new'}


def ftrace_name(n):
    n = ALIAS.get(n, n)
    if n in ('syscall_entry_unknown',):
        return 'sys_enter'
    if n in ('syscall_exit_unknown', 'exit_syscall'):
        return 'sys_exit'
    if n.startswith('syscall_entry_'):
        return 'sys_enter_' + n[14:]
    if n.startswith('syscall_exit_'):
        return 'sys_exit_' + n[13:]
    if n.startswith('sys_') and len(n) > 4:
        return 'sys_enter_' + n[4:]
    return n


def parse_report(path):
    out = {}
    f = sys.stdin if path == '-' else open(path, errors='surrogateescape')
    for line in f:
        m = LINE.match(line.rstrip('\n'))
        if m:
            ts = int(m.group(4)) * 1000000000 + int(m.group(5))
            out.setdefault(int(m.group(3)), []).append(
                (ts, m.group(6), int(m.group(2)), m.group(7).strip(' ')))
    return out


def split_fields(text, keys=None):
    """{name: text} of a -R line: by the expected keys in order when
    given (strings may hold spaces), else at each ' name='."""
    if keys:
        rx = r'\s*' + ' '.join(re.escape(k) + '=(.*?)' for k in keys) + r'\s*$'
        m = re.match(rx, text)
        if m:
            return dict(zip(keys, m.groups()))
    out = {}
    for part in re.split(r' (?=[A-Za-z_][A-Za-z0-9_]*=)', ' ' + text):
        if '=' in part:
            k, v = part.split('=', 1)
            out[k.strip()] = v
    return out


def width(fc):
    b = fc.field_value_range
    return 8 if b <= 8 else 16 if b <= 16 else 32 if b <= 32 else 64


def is_int(fc):
    return isinstance(fc, (bt2._UnsignedIntegerFieldClassConst,
                           bt2._SignedIntegerFieldClassConst))


def is_array(fc):
    return isinstance(fc, bt2._ArrayFieldClassConst)


def is_string(fc):
    return isinstance(fc, bt2._StringFieldClassConst)


def seq_length(pay, name):
    if not (name.startswith('_') and name.endswith('_length')):
        return False
    m = pay.get(name[1:-7])
    return m is not None and isinstance(
        m.field_class, bt2._DynamicArrayFieldClassConst)


def same(field, fc, text, add=0):
    if is_int(fc):
        mask = (1 << width(fc)) - 1
        t = text.strip()
        try:
            n = int(t, 16) if t.lower().startswith(('0x', '-0x')) else int(t)
        except ValueError:
            return False
        return (n & mask) == ((int(field) + add) & mask)
    if is_string(fc):
        # a string with a newline cuts the report's line: its first line
        s = str(field)
        return text == s or ('\n' in s and text == s.split('\n')[0])
    if is_array(fc):
        el = fc.element_field_class
        if is_string(el) or not is_int(el):
            return False
        es = width(el) // 8
        want = b''.join((int(x) & ((1 << (8 * es)) - 1)).to_bytes(es, 'little')
                        for x in field)
        t = text.strip()
        if t in ('', 'ARRAY[]'):
            return want == b''
        m = re.fullmatch(r'ARRAY\[(.*)\]', t)
        if not m:
            # bytes libtraceevent finds printable: a string to the NUL
            return es == 1 and text.encode('latin-1', 'replace') == \
                want.split(b'\0')[0]
        got = bytes(int(x, 16) for x in m.group(1).split(', ') if x)
        return got == want
    return False


class Stats:
    def __init__(self):
        self.events = self.checked = self.equal = self.ts = self.pids = 0
        self.left = 0
        self.diffs = []

    def note(self, ok, what):
        self.checked += 1
        if ok:
            self.equal += 1
        elif len(self.diffs) < 10:
            self.diffs.append(what)


def compare_event(st, ev, line, old_prio):
    name = ev.name
    fname = ftrace_name(name)
    ts, rname, _, text = line
    pay = ev.payload_field
    mapped = fname in MAPPED
    if rname != fname and rname != name:
        st.note(False, 'name %s: report %s' % (name, rname))
        return
    if mapped:
        rep = split_fields(text)
        for k, v in rep.items():
            src = None
            if k.endswith('pid') and (k[:-3] + 'tid') in pay:
                src = k[:-3] + 'tid'
            elif k in pay:
                src = k
            if src is None:
                continue        # a field LTTng has not: 0
            add = 100 if k.endswith('prio') and not (
                fname in WAKEUP and old_prio) else 0
            st.note(same(pay[src], pay.cls[src].field_class, v, add),
                    '%s %s: %s vs %s' % (name, k, pay[src], v))
        used = {(k[:-3] + 'tid') if k.endswith('pid') and (k[:-3] + 'tid')
                in pay else k for k in rep}
        st.left += sum(1 for m in pay if m not in used)
        return
    keys = [m for m in pay if not seq_length(pay.cls, m)
            and (is_int(pay.cls[m].field_class) or is_string(
                pay.cls[m].field_class) or (is_array(pay.cls[m].field_class)
                and is_int(pay.cls[m].field_class.element_field_class)))]
    st.left += len(pay) - len(keys)
    rep = split_fields(text, keys)
    for k in keys:
        st.note(k in rep and same(pay[k], pay.cls[k].field_class, rep[k]),
                '%s %s: %s vs %s' % (name, k, pay[k], rep.get(k)))


def read_streams(d):
    """[(cpu, [(ts, event)...])] per data stream, in stream order;
    the trace's environment."""
    class Sink(bt2._UserSinkComponent):
        def __init__(self, config, params, obj):
            for i in range(int(params['n'])):
                self._add_input_port('in%d' % i)
            self.its = []

        def _user_graph_is_configured(self):
            self.its = [self._create_message_iterator(p)
                        for p in self._input_ports.values()]

        def _user_consume(self):
            if not self.its:
                raise bt2.Stop
            try:
                m = next(self.its[0])
            except StopIteration:
                self.its.pop(0)
                out.append(None)
                return
            if type(m) is bt2._StreamBeginningMessageConst:
                env.update(dict(m.stream.trace.environment))
            elif type(m) is bt2._PacketBeginningMessageConst:
                c = m.packet.context_field
                if cur['cpu'] is None and c is not None and 'cpu_id' in c:
                    cur['cpu'] = int(c['cpu_id'])
            elif type(m) is bt2._EventMessageConst:
                cur['ev'].append((m.default_clock_snapshot.ns_from_origin,
                                  m.event))

    out, env = [], {}
    cur = {'cpu': None, 'ev': []}
    g = bt2.Graph()
    src = g.add_component(bt2.find_plugin('ctf').source_component_classes['fs'],
                          'src', params={'inputs': [d]})
    ports = list(src.output_ports.values())
    s = g.add_component(Sink, 'sink', params={'n': len(ports)})
    for i, p in enumerate(ports):
        g.connect_ports(p, s.input_ports['in%d' % i])
    streams = []
    while True:
        try:
            g.run_once()
        except bt2.Stop:
            break
        if out:
            out.pop()
            streams.append((cur['cpu'], cur['ev']))
            cur = {'cpu': None, 'ev': []}
    return streams, env


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write('usage: lttng-compare.py DIR REPORT [NAME]\n')
        return 2
    d, rp = sys.argv[1], sys.argv[2]
    name = sys.argv[3] if len(sys.argv) > 3 else d
    report = parse_report(rp)
    streams, env = read_streams(d)
    ver = (int(env.get('tracer_major', 0)), int(env.get('tracer_minor', 0)),
           int(env.get('tracer_patchlevel', 0)))
    old_prio = ver < (2, 7, 1)
    st = Stats()
    ntc = sum(len(v) for v in report.values())
    for cpu, evs in streams:
        lines = report.get(cpu, [])
        pid = None
        for ts, ev in evs:
            if ev.name == 'sched_switch' and pid is None:
                pid = int(ev.payload_field['prev_tid'])
        first = pid if pid is not None else 0
        pid = first
        for i, (ts, ev) in enumerate(evs):
            st.events += 1
            if i >= len(lines):
                st.note(False, 'cpu %d: event %d %s not in the report'
                        % (cpu, i, ev.name))
                continue
            line = lines[i]
            if line[0] == ts:
                st.ts += 1
            elif len(st.diffs) < 10:
                st.diffs.append('cpu %d event %d: time %d vs %d'
                                % (cpu, i, ts, line[0]))
            p = pid
            if ev.name == 'sched_switch':
                p = int(ev.payload_field['prev_tid'])
                pid = int(ev.payload_field['next_tid'])
            if p == line[2]:
                st.pids += 1
            elif len(st.diffs) < 10:
                st.diffs.append('cpu %d event %d %s: pid %d vs %d'
                                % (cpu, i, ev.name, p, line[2]))
            compare_event(st, ev, line, old_prio)
        if len(lines) > len(evs):
            st.note(False, 'cpu %d: %d report lines past the events'
                    % (cpu, len(lines) - len(evs)))
    print('%s events %d (trace-cmd %d) fields checked %d equal %d '
          'timestamps equal %d pids equal %d, left out %d'
          % (name, st.events, ntc, st.checked, st.equal, st.ts, st.pids,
             st.left))
    for x in st.diffs:
        print('  ' + x)
    ok = (st.events == ntc and st.checked == st.equal and
          st.ts == st.events and st.pids == st.events)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
