#!/usr/bin/env python3
"""salvage-check.py: what tdat-cat --salvage must keep, found without it.

  salvage-check.py keep FILE CUT
      The pages of FILE's top buffer that lie whole in its first CUT
      bytes, as a spec "CPU:PAGE,PAGE... CPU:..." (one word per CPU).
      Raw data: whole pages before CUT; compressed v7: the pages of the
      chunks whose bytes all lie before CUT (the chunk table is read here
      from the file's bytes, the CPU offsets from tdat-dump --flyrecord).
  salvage-check.py drop SPEC CPU:PAGE...
      SPEC without the pages named.
  salvage-check.py check REF OUT SPEC
      REF is an intact copy of the input with raw pages (v6): the events
      trace-cmd report -N -t prints for OUT must be exactly the events of
      REF whose CPU and time fall in the kept pages of SPEC, in REF's
      order.  Prints the kept page and event counts per CPU.
"""
import os
import re
import struct
import subprocess
import sys

BIN = os.environ.get("TDAT_BIN", os.path.join(os.path.dirname(__file__),
                                               "..", "build", "bin"))
LINE = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d+):")


def flyrecord(path):
    """[(cpu, offset, npages, compressed size or None)] of buffer ""."""
    out = subprocess.run([os.path.join(BIN, "tdat-dump"), "--flyrecord",
                          path], capture_output=True, text=True,
                         check=True).stdout
    cpus, top = [], False
    for ln in out.splitlines():
        if ln.startswith("buffer "):
            top = ln.strip() == 'buffer ""'
            continue
        m = re.match(r"\s*cpu (\d+): offset (\d+), (compressed size (\d+), )?"
                     r".*?(\d+) pages", ln)
        if top and m:
            cpus.append((int(m.group(1)), int(m.group(2)), int(m.group(5)),
                         m.group(4) is not None))
    return cpus


def keep(path, cut):
    data = open(path, "rb").read()
    words = []
    for cpu, off, npages, comp in flyrecord(path):
        pages = []
        if not comp:
            n = max(0, min(npages, (cut - off) // 4096))
            pages = list(range(n))
        elif off + 4 <= cut:
            (count,) = struct.unpack_from("<I", data, off)
            at, p = off + 4, 0
            for _ in range(count):
                cs, us = struct.unpack_from("<II", data, at)
                if at + 8 + cs > cut:
                    break
                pages += range(p, p + us // 4096)
                p += us // 4096
                at += 8 + cs
        words.append("%d:%s" % (cpu, ",".join(map(str, pages))))
    return " ".join(words)


def parse_spec(spec):
    kept = {}
    for w in spec.split():
        cpu, _, pages = w.partition(":")
        kept[int(cpu)] = set(int(p) for p in pages.split(",") if p)
    return kept


def drop(spec, names):
    kept = parse_spec(spec)
    for n in names:
        cpu, _, page = n.partition(":")
        kept[int(cpu)].discard(int(page))
    return " ".join("%d:%s" % (c, ",".join(map(str, sorted(p))))
                    for c, p in sorted(kept.items()))


def events(path):
    out = subprocess.run(["trace-cmd", "report", "-N", "-t", path],
                         capture_output=True, text=True, check=True).stdout
    ev = []
    for ln in out.splitlines():
        m = LINE.search(ln)
        if m:
            ev.append((int(m.group(1)), int(m.group(2)) * 10**9 +
                       int(m.group(3).ljust(9, "0")), ln))
    return ev


def check(ref, out, spec):
    kept = parse_spec(spec)
    data = open(ref, "rb").read()
    ranges = {}
    for cpu, off, npages, comp in flyrecord(ref):
        assert not comp, "the reference must hold raw pages"
        stamps = [struct.unpack_from("<Q", data, off + 4096 * i)[0]
                  for i in range(npages)] + [1 << 64]
        ranges[cpu] = [(stamps[i], stamps[i + 1])
                       for i in sorted(kept.get(cpu, ()))]
    want = [e for e in events(ref)
            if any(lo <= e[1] < hi for lo, hi in ranges.get(e[0], ()))]
    got = events(out)
    for cpu in sorted(ranges):
        print("CPU %d: %d pages, %d events expected, %d got" % (
            cpu, len(kept.get(cpu, ())), sum(1 for e in want if e[0] == cpu),
            sum(1 for e in got if e[0] == cpu)))
    if [e[2] for e in want] != [e[2] for e in got]:
        w, g = [e[2] for e in want], [e[2] for e in got]
        for i in range(min(len(w), len(g))):
            if w[i] != g[i]:
                print("first difference at event %d:\n- %s\n+ %s" %
                      (i, w[i], g[i]))
                break
        else:
            print("%d events expected, %d got" % (len(w), len(g)))
        return 1
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "keep":
        print(keep(argv[2], int(argv[3])))
        return 0
    if len(argv) >= 3 and argv[1] == "drop":
        print(drop(argv[2], argv[3:]))
        return 0
    if len(argv) == 5 and argv[1] == "check":
        return check(argv[2], argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
