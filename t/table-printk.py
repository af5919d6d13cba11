#!/usr/bin/env python3
"""table-printk.py: check tdat-to-table's trace_printk format tables.

    table-printk.py DIR REPORT

DIR is what tdat-to-table wrote, REPORT what tdat-dump --records -N -t
printed of the same input.  Each printk table (meta.json kind "printk")
is read with pandas as meta.json says; each row's arguments, put back
into its format with Python's % operator (%p as 0x and hex digits), must
give the message of the bprint line of the same CPU and time.  Every
bprint line whose message was so checked counts; prints "N tables, N
rows, N messages equal" and exits 1 on a difference.
"""
import json
import os
import re
import sys

import pandas as pd

CONV = re.compile(r"%([#0-9.+]*)(ll|l|L|z|Z)?(p[sSxfF]?|[diuxXos%])")


def render(fmt, args):
    out, i, k = [], 0, 0
    for m in CONV.finditer(fmt):
        out.append(fmt[i:m.start()])
        i = m.end()
        flags, conv = m.group(1), m.group(3)
        if conv == "%":
            out.append("%")
            continue
        v = args[k]
        k += 1
        if conv.startswith("p"):
            out.append("0x%x" % int(v, 16) if isinstance(v, str) else
                       "0x%x" % v)
        else:
            out.append(("%" + flags + conv) % v)
    out.append(fmt[i:])
    return "".join(out)


def main(d, report):
    msgs = {}
    line = re.compile(r"\[(\d+)\] \S+ +(\d+)\.(\d+): bprint: +\S+: (.*)$")
    with open(report, encoding="utf-8", errors="surrogateescape") as f:
        for ln in f:
            m = line.search(ln.rstrip("\n"))
            if m:
                ts = int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, "0"))
                msgs[(int(m.group(1)), ts)] = m.group(4)
    meta = json.load(open(os.path.join(d, "meta.json")))
    nt = nr = 0
    bad = []
    for t in meta["events-info"]:
        if t["kind"] != "printk":
            continue
        nt += 1
        df = pd.read_csv(os.path.join(d, t["path"]), **t["read_csv"])
        if len(df) != t["nr-rows"]:
            bad.append("%s: %d rows, meta.json %d" % (t["path"], len(df),
                                                       t["nr-rows"]))
        args = [c["name"] for c in t["columns"]][
            [c["name"] for c in t["columns"]].index("ip") + 1:]
        for r in df.itertuples(index=False):
            r = r._asdict()
            key = (int(r["common_cpu"]), int(r["common_ts"]))
            want = msgs.get(key)
            got = render(t["format"], [r[a] if not hasattr(r[a], "item")
                                       else r[a].item() for a in args])
            nr += 1
            if got != want:
                bad.append("%s: %s: %r, report %r" % (t["path"], key, got,
                                                      want))
    print("%d tables, %d rows, %d messages equal" % (nt, nr, nr - len(bad)))
    if bad:
        print("\n".join(bad[:20]))
        return 1
    return 0 if nr else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
