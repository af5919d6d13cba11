#!/usr/bin/env python3
"""json-report-cmp.py: check tdat-to-json's events against trace-cmd report -R.

    json-report-cmp.py [-v] TOOL FILE.dat EXPECTED [...]

TOOL is the tdat-to-json program; EXPECTED is what `trace-cmd report -R -t
FILE.dat` printed (plain, or zstd-compressed when it ends in .zst).  Several
FILE EXPECTED pairs may follow.  For every event, the JSON line must give
the same line header (buffer, comm, pid, CPU, timestamp, event name) and
every field in the same order with the same value.  The JSON values are
decoded as tdat-to-json(1) documents them: integers are numbers, or
strings of decimal digits beyond 2^53, addresses "0x.." strings, strings
that are not UTF-8 {"hex": ".."}.  Integers must equal the number printed
(decimal, or hex when report prints 0x.. or bare hex digits, and truncated
to the width of the conversion), strings the text printed byte for byte
(or the bytes of ARRAY[..] up to their first NUL), arrays the bytes of
ARRAY[..] (or of the text report prints for a printable u8 array).
Lost-events lines must match "lost".  A pointer printed as a kernel symbol
must name the symbol that holds the value (symbols from tdat-to-json
--meta), and the event's "symbols" must give that name for the field.

Prints one line per file: events, mismatches, and how the values matched;
exits 0 only when every event of every file matches.
"""
import bisect
import json
import re
import subprocess
import sys


def text_bytes(v):
    """The bytes of a JSON string value: UTF-8, or {"hex": ..}."""
    if isinstance(v, dict):
        return bytes.fromhex(v["hex"])
    return v.encode("utf-8")


def is_scalar(f):
    """A number, not an array or a string: no [N], no __data_loc, not a
    flexible array member (size 0, old ftrace formats drop its [])."""
    decl = f["declaration"]
    return not decl.startswith("__data_loc") and \
        not decl.startswith("__rel_loc") and \
        not decl.rstrip().endswith("]") and f.get("size", 0) != 0


def decode(fields, fmt):
    """The JSON fields as Python values: ints for integers (numbers,
    decimal strings, "0x.." addresses), bytes for strings, lists of ints
    for arrays."""
    fld = {f["name"]: f for f in fmt}
    out = {}
    for k, v in fields.items():
        if isinstance(v, list):
            v = [int(x, 0) if isinstance(x, str) else x for x in v]
        elif isinstance(v, dict):
            v = text_bytes(v)
        elif isinstance(v, str):
            v = int(v, 0) if k in fld and is_scalar(fld[k]) else \
                text_bytes(v)
        out[k] = v
    return out


def read_expected(path):
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dcq", path], check=True,
                              stdout=subprocess.PIPE).stdout
    else:
        data = open(path, "rb").read()
    return data.split(b"\n")


HEX = re.compile(r"^(-?)0[xX]([0-9a-fA-F]+)$")
DEC = re.compile(r"^-?[0-9]+$")
BHEX = re.compile(r"^[0-9a-fA-F]+$")
DROP = re.compile(rb"^CPU:(\d+) \[(?:(\d+) )?EVENTS DROPPED\]$")


class Syms:
    def __init__(self, meta):
        syms = sorted((int(k["address"], 16), k["name"])
                      for k in meta.get("kallsyms", []))
        self.addr = [a for a, _ in syms]
        self.name = [n for _, n in syms]
        self.printk = {int(p["address"], 16): p["format"].replace("\\n", "")
                       for p in meta.get("printk", [])}

    def names(self, v):
        """The symbols holding v (all those at the same address), with
        their address."""
        i = bisect.bisect_right(self.addr, v) - 1
        out = {}
        j = i
        while j >= 0 and self.addr[j] == self.addr[i]:
            out[self.name[j]] = self.addr[j]
            j -= 1
        return out


def widths(v):
    """The values a printf conversion of v may show: v itself and v cut to
    64, 32, 16 or 8 bits, unsigned and signed."""
    out = {v}
    for bits in (64, 32, 16, 8):
        u = v & ((1 << bits) - 1)
        out.add(u)
        out.add(u - (1 << bits) if u >> (bits - 1) else u)
    return out


class Cmp:
    def __init__(self):
        self.how = {}

    def note(self, how):
        self.how[how] = self.how.get(how, 0) + 1

    def int_ok(self, tok, v, syms, symname=None):
        t = tok.strip()
        w = widths(v)
        if DEC.match(t) and int(t) in w:
            self.note("decimal" if int(t) == v else "decimal-cut")
            return True
        m = HEX.match(t)
        if m:
            n = int(m.group(2), 16)
            if m.group(1):
                n = -n
            if n in w:
                self.note("hex")
                return True
        if BHEX.match(t) and int(t, 16) in w:
            self.note("bare-hex")
            return True
        if t == "(nil)" and v == 0:
            self.note("nil")
            return True
        if len(tok) == 1 and ord(tok) == (v & 0xff):
            self.note("char")
            return True
        if syms is not None and re.match(r"^[A-Za-z_.$][\w.$]*(\+0x[0-9a-f]+(/0x[0-9a-f]+)?)?( \[[\w-]+\])?$", t):
            u = v & (2**64 - 1)
            name = t.split("+")[0].split(" ")[0]
            at = syms.names(u)
            if name in at and symname == name:
                m = re.match(r"^[^+]*\+0x([0-9a-f]+)", t)
                if m is None or u - at[name] == int(m.group(1), 16):
                    self.note("symbol")
                    return True
        return False


def array_bytes(tok):
    m = re.match(r"^ARRAY\[(.*)\]$", tok)
    if not m:
        return None
    body = m.group(1)
    if body == "":
        return b""
    try:
        return bytes(int(x, 16) for x in body.split(", "))
    except ValueError:
        return None


def compare_fields(cmp, text, fields, big, syms, fmt, symbols):
    """text: the bytes after the event name; fields: the JSON object
    decoded; symbols: the event's "symbols"."""
    t = text.decode("latin-1")
    keys = list(fields)
    arrsize, arrlen, flex = {}, {}, set()
    for f in fmt:
        m = re.search(r"\[(\d+)\]$", f["declaration"])
        if m and int(m.group(1)) > 0:
            arrsize[f["name"]] = f.get("size", 0)
            arrlen[f["name"]] = int(m.group(1))
        if f.get("size") == 0:
            flex.add(f["name"])
    pos = 0
    for i, k in enumerate(keys):
        head = " " + k + "="
        if not t.startswith(head, pos):
            return "field %s: expected %r at %r" % (k, head, t[pos:pos + 40])
        pos += len(head)
        v = fields[k]
        nxt = " " + keys[i + 1] + "=" if i + 1 < len(keys) else None
        if isinstance(v, list) and not t.startswith("ARRAY[", pos) and \
                all(0 <= x < 256 for x in v) and not (k in flex and
                                                      t.startswith("0", pos)):
            # A u8 array that report prints as text.
            v = bytes(v).split(b"\0")[0]
            cmp.note("bytes-as-text")
        if isinstance(v, bytes):
            # Either the string as printed, or ARRAY[..] of its bytes.
            if t.startswith("ARRAY[", pos):
                end = t.index("]", pos) + 1
                b = array_bytes(t[pos:end])
                if b is None or b.split(b"\0")[0] != v:
                    return "field %s: %r is not %r" % (k, t[pos:end], v)
                cmp.note("string-array")
                pos = end
                continue
            got = t[pos:pos + len(v)].encode("latin-1")
            if got == v and (nxt is None and pos + len(v) == len(t)
                             or nxt and t.startswith(nxt, pos + len(v))):
                cmp.note("string")
                pos += len(v)
                continue
            return "field %s: %r is not %r" % (k, t[pos:pos + len(v) + 20], v)
        if nxt:
            end = t.find(nxt, pos)
            if end < 0:
                return "field %s: no %r after it" % (k, nxt)
        else:
            end = len(t)
        tok = t[pos:end]
        pos = end
        if isinstance(v, list) and k in flex and tok == "0":
            # A flexible array member without "[]": report reads 0 bytes.
            cmp.note("flex-0")
            continue
        if isinstance(v, list):
            b = array_bytes(tok)
            if b is None:
                return "field %s: %r is not an ARRAY" % (k, tok)
            if not v:
                ok = len(b) == 0 or k in flex
            elif len(b) % len(v):
                ok = False
            else:
                es = len(b) // len(v)
                order = "big" if big else "little"
                vals = [int.from_bytes(b[j:j + es], order)
                        for j in range(0, len(b), es)]
                ok = vals == [x & ((1 << (8 * es)) - 1) for x in v]
            if not ok and k in arrsize and len(b) == arrsize[k] and \
                    len(b) > 8 * len(v):
                # report reads a fixed array whole even where the record
                # ends before it; the JSON has the elements inside it.
                es = arrsize[k] // arrlen[k]
                order = "big" if big else "little"
                vals = [int.from_bytes(b[j:j + es], order)
                        for j in range(0, es * len(v), es)]
                if vals == [x & ((1 << (8 * es)) - 1) for x in v]:
                    cmp.note("array-past-record")
                    continue
            if not ok:
                return "field %s: %r is not %r" % (k, tok, v)
            cmp.note("array")
            continue
        if isinstance(v, int) and syms is not None and \
                syms.printk.get(v & (2**64 - 1)) == tok:
            cmp.note("printk-string")
            continue
        if not cmp.int_ok(tok, v, syms, symbols.get(k)):
            return "field %s: %r is not %r (symbol %r)" % (
                k, tok, v, symbols.get(k))
    if pos != len(t) and t[pos:].strip():
        return "text left over: %r" % t[pos:pos + 40]
    return None


def header(ev, prefix, usecs):
    comm = ev.get("comm", "")
    if isinstance(comm, dict):
        comm = text_bytes(comm).decode("utf-8", errors="surrogateescape")
    pid = ev.get("pid", 0)
    h = "%16s-%-5d [%03d]" % (comm, pid, ev["cpu"])
    ts = int(ev["ts"])
    if usecs:
        h += " %5d.%09d:" % (ts // 1000000000, ts % 1000000000)
    else:
        h += "%12d:" % ts
    name = ev["event"]
    h += " %s: " % name
    if len(name) < 20:
        h += " " * (20 - len(name))
    return prefix + h


def check_file(tool, dat, expected, verbose):
    meta = json.loads(subprocess.run([tool, "--meta", dat], check=True,
                                     stdout=subprocess.PIPE).stdout)
    out = subprocess.run([tool, dat], stdout=subprocess.PIPE)
    if out.returncode != 0:
        return 0, 1, "exit status %d" % out.returncode, {}
    events = [json.loads(l) for l in out.stdout.split(b"\n") if l]
    lines = read_expected(expected)
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines or not lines[0].startswith(b"cpus="):
        return 0, 1, "no cpus= line", {}
    lines = lines[1:]
    big = meta["endianness"] == "big"
    syms = Syms(meta)
    formats = {}
    for f in meta["ftrace_events"]:
        formats[("ftrace", f["name"])] = f["fields"]
    for sy in meta["systems"]:
        for f in sy["events"]:
            formats[(sy["name"], f["name"])] = f["fields"]
    if meta["latency"] is not None:
        ok = not events
        return 0, 0 if ok else 1, "latency text, no events", {}
    names = [b["name"] for b in meta["buffers"][1:]]
    width = max([len(n) for n in names] + [0])
    tclocks = ("local", "global", "uptime", "perf", "mono", "mono_raw", "boot")
    clock = meta["trace_clock"]["selected"]
    tsc = any(o["name"] == "TSC2NSEC" for o in meta["options"])
    usecs = tsc or not clock or clock in tclocks
    cmp = Cmp()
    bad = 0
    li = 0
    first_bad = None
    for n, ev in enumerate(events):
        if li >= len(lines):
            bad += len(events) - n
            first_bad = first_bad or "more events than report lines"
            break
        line = lines[li]
        li += 1
        buf = ev.get("buffer")
        if width:
            prefix = ("%*s: " % (width, buf)) if buf else " " * (width + 2)
        else:
            prefix = ""
        pb = prefix.encode("utf-8", errors="surrogateescape")
        why = None
        if line.startswith(pb) and DROP.match(line[len(pb):]):
            m = DROP.match(line[len(pb):])
            want = int(m.group(2)) if m.group(2) else None
            got = ev.get("lost", "absent")
            if isinstance(got, str) and got != "absent":
                got = int(got)
            if got != want or \
                    int(m.group(1)) != ev["cpu"]:
                why = "lost events: %r, JSON lost %r" % (
                    line, ev.get("lost", "absent"))
            if li >= len(lines):
                why = why or "no line after the lost events"
            else:
                line = lines[li]
                li += 1
                prefix = ""
        elif "lost" in ev and ev["lost"] is not None and int(ev["lost"]) > 0:
            why = "JSON lost %r but no EVENTS DROPPED line" % ev["lost"]
        # A string holding newlines spans report lines; the last newline
        # of the line is not printed.
        fmt = formats.get((ev["system"], ev["event"]), [])
        fl = decode(ev.get("fields", {}), fmt)
        nl = sum(x.count(b"\n") for x in fl.values() if isinstance(x, bytes))
        if fl:
            lastv = list(fl.values())[-1]
            if isinstance(lastv, bytes) and lastv.endswith(b"\n"):
                nl -= 1
                fl[list(fl)[-1]] = lastv[:-1]
        while nl > 0 and li < len(lines):
            line += b"\n" + lines[li]
            li += 1
            nl -= 1
        if why is None and ev.get("event") is None:
            # trace-cmd prints no pid, CPU or time for it, only this.
            want = (prefix + "[UNKNOWN EVENT][UNKNOWN EVENT] (NULL):"
                    + " " * 15 + "[UNKNOWN EVENT]").encode()
            why = None if line == want else "unknown event: %r" % line
            if why is None:
                cmp.note("unknown-event")
        elif why is None:
            h = header(ev, prefix, usecs).encode("utf-8",
                                                  errors="surrogateescape")
            if not line.startswith(h):
                why = "header %r is not %r" % (line[:len(h) + 10], h)
            else:
                why = compare_fields(cmp, line[len(h):], fl, big, syms, fmt,
                                     ev.get("symbols", {}))
        if why:
            bad += 1
            if first_bad is None:
                first_bad = "event %d (report line %d): %s" % (n + 1, li + 1,
                                                               why)
            if verbose:
                print("  event %d: %s" % (n + 1, why))
    if li < len(lines):
        bad += len(lines) - li
        first_bad = first_bad or "%d report lines left" % (len(lines) - li)
    return len(events), bad, first_bad, cmp.how


def main(argv):
    verbose = False
    args = argv[1:]
    if args and args[0] == "-v":
        verbose = True
        args = args[1:]
    if len(args) < 3 or len(args) % 2 != 1:
        print(__doc__, file=sys.stderr)
        return 2
    tool = args[0]
    total = totbad = 0
    for dat, exp in zip(args[1::2], args[2::2]):
        n, bad, why, how = check_file(tool, dat, exp, verbose)
        total += n
        totbad += bad
        hows = ", ".join("%s %d" % kv for kv in sorted(how.items()))
        print("%s: %d events, %d mismatches%s%s" % (
            dat.rsplit("/", 1)[-1], n, bad, " (%s)" % hows if hows else "",
            "; first: " + why if why and bad else ""))
    print("total: %d events, %d mismatches" % (total, totbad))
    return 1 if totbad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
