#!/usr/bin/env python3
"""table-check.py: check tdat-to-table's tables against tdat-to-json.

    table-check.py [--pandas] [--duck ROWS.jsonl] [--hex] DIR EVENTS.jsonl

DIR is what tdat-to-table wrote, EVENTS.jsonl what tdat-to-json wrote of
the same inputs with the same selection.  Every JSON Lines object is a row
of one table (an event of its SYSTEM.EVENT table, of unknown.csv when its
type is unknown, a latency line of latency.csv, and one more row of
lost.csv where events were lost before it); each table must have its rows
in that order, its row count in meta.json, and every cell must be the
JSON value of its column, read as meta.json says ("as": integer, address,
text, bytes, array).

--pandas: read each table with pandas.read_csv(path, **table["read_csv"])
(the dtypes of meta.json, keep_default_na=False) and check the dtypes.
--duck ROWS.jsonl: the tables as t/table-duck.mjs read them with DuckDB
(one line per table: path, the column types, the rows with integers as
decimal strings).
--hex: the tables were written with --hex (addresses "0x...").

Prints one line per table and reader, "N tables, N rows, N values
checked, N equal" per reader, and exits 1 on the first mismatches (up to
20 are shown).
"""
import json
import os
import sys


def num(v):
    """A JSON integer: a number or a string of decimal digits."""
    if isinstance(v, bool):
        raise ValueError(v)
    return int(v)


def text(v):
    if isinstance(v, dict):
        return '{"hex":"%s"}' % v["hex"]
    return v


class Fail(Exception):
    pass


def expected_cell(col, ev, hexmode):
    """The value column col must hold for the JSON object ev, in the form
    a reader gives it (int, str, bool, None); KeyError if not in ev."""
    name, kind = col["name"], col["as"]
    if name == "common_ts":
        return num(ev["ts"])
    if name == "common_cpu":
        return num(ev["cpu"])
    if name == "common_file":
        return ev["file"]
    if name == "common_buffer":
        return ev.get("buffer", "")
    if "latency" in ev:
        if name == "line":
            return text(ev["latency"])
        if name == "newline":
            return ev.get("newline", True)
    if name == "common_pid":
        return num(ev["pid"])
    if name == "common_comm":
        return text(ev["comm"])
    if name == "common_flags":
        return num(ev["flags"])
    if name == "common_preempt_count":
        return num(ev["preempt_count"])
    if name == "lost":
        return None if ev["lost"] is None else num(ev["lost"])
    if name == "id" and ev.get("event") is None:
        return num(ev["id"])
    if name == "data" and ev.get("event") is None:
        raise KeyError(name)          # not in the JSON: not compared
    if name == "format":
        raise KeyError(name)
    if name.startswith("common_"):
        v = ev["common"][name[7:]]
    elif name.endswith("_sym") and name not in ev["fields"]:
        return text(ev.get("symbols", {}).get(name[:-4], ""))
    else:
        v = ev["fields"][name]
    if kind == "integer":
        return num(v)
    if kind == "address":
        return v if hexmode else int(v, 16)
    if kind == "text":
        return text(v)
    if kind == "bytes":
        if isinstance(v, list):
            return bytes(num(x) & 0xff for x in v).hex()
        if num(v) == 0:
            return ""                 # an odd-size field past the record
    if kind in ("array", "address-array"):
        if kind == "address-array" and not hexmode:
            return [int(x, 16) for x in v]
        if kind == "array":
            return [num(x) for x in v]
        return v
    raise Fail("column %s: value %r of kind %s" % (name, v, kind))


def cell_value(col, v):
    """A reader's value in the form expected_cell() gives."""
    if v is None or type(v).__name__ == "NAType":   # pandas.NA (Int64)
        return None
    if col["as"] in ("array", "address-array"):
        return json.loads(v)
    if isinstance(v, float):
        if v != v:
            return None
        raise Fail("column %s: float %r" % (col["name"], v))
    if hasattr(v, "item"):           # numpy scalars
        v = v.item()
    return v


def load_events(path, tables):
    """The JSON objects, split into the rows of each table (by path)."""
    by_event = {}
    for t in tables:
        if t["kind"] == "event":
            if t["event"] in by_event:
                raise Fail("two tables for %s: not handled" % t["event"])
            by_event[t["event"]] = t["path"]
    rows = {t["path"]: [] for t in tables}
    with open(path, encoding="utf-8") as f:
        for line in f:
            ev = json.loads(line)
            if "latency" in ev:
                rows.setdefault("latency.csv", []).append(ev)
                continue
            if "lost" in ev:
                rows.setdefault("lost.csv", []).append(ev)
            if ev.get("event") is None:
                rows.setdefault("unknown.csv", []).append(ev)
                continue
            key = "%s:%s" % (text(ev["system"]), text(ev["event"]))
            rows.setdefault(by_event.get(key, key), []).append(ev)
    return rows


def compare(reader, t, columns, expect, hexmode, bad):
    """columns: name -> list of values read.  Returns values checked."""
    n = 0
    for col in t["columns"]:
        got = columns[col["name"]]
        for i, ev in enumerate(expect):
            try:
                want = expected_cell(col, ev, hexmode)
            except KeyError:
                continue
            have = cell_value(col, got[i])
            n += 1
            if have != want or type(have) is not type(want):
                bad.append("%s: %s row %d column %s: %r, JSON %r" %
                           (reader, t["path"], i, col["name"], have, want))
                if len(bad) >= 20:
                    raise Fail("\n".join(bad))
    return n


def main(argv):
    use_pandas, duck, hexmode = False, None, False
    args = []
    it = iter(argv)
    for a in it:
        if a == "--pandas":
            use_pandas = True
        elif a == "--duck":
            duck = next(it)
        elif a == "--hex":
            hexmode = True
        else:
            args.append(a)
    d, events = args
    with open(os.path.join(d, "meta.json"), encoding="utf-8") as f:
        meta = json.load(f)
    tables = meta["events-info"]
    rows = load_events(events, tables)
    printk = [t for t in tables if t["kind"] == "printk"]
    tables = [t for t in tables if t["kind"] != "printk"]
    for p, evs in rows.items():
        if evs and not any(t["path"] == p for t in tables):
            raise Fail("no table for %s (%d rows)" % (p, len(evs)))
    bad = []
    total = sum(len(v) for v in rows.values())
    if meta["nr-rows"] != total:
        bad.append("meta.json nr-rows %d, JSON %d" % (meta["nr-rows"], total))
    readers = []
    if use_pandas:
        import pandas
        readers.append("pandas")
    if duck:
        readers.append("duckdb")
        dk = {}
        with open(duck, encoding="utf-8") as f:
            for line in f:
                o = json.loads(line)
                dk[o["path"]] = o
    for reader in readers:
        nv = nr = 0
        before = len(bad)
        for t in tables:
            expect = rows.get(t["path"], [])
            names = [c["name"] for c in t["columns"]]
            if reader == "pandas":
                df = pandas.read_csv(os.path.join(d, t["path"]),
                                     **t["read_csv"])
                if list(df.columns) != names:
                    bad.append("pandas: %s columns %s" % (t["path"],
                                                          list(df.columns)))
                    continue
                for c in t["columns"]:
                    want = "object" if c["dtype"] == "str" else c["dtype"]
                    if str(df[c["name"]].dtype) != want:
                        bad.append("pandas: %s column %s dtype %s, not %s" %
                                   (t["path"], c["name"],
                                    df[c["name"]].dtype, want))
                columns = {c: df[c].tolist() for c in names}
                count = len(df)
            else:
                o = dk[t["path"]]
                if o["names"] != names:
                    bad.append("duckdb: %s columns %s" % (t["path"],
                                                          o["names"]))
                    continue
                for c, ty in zip(t["columns"], o["types"]):
                    if ty != c["duckdb"]:
                        bad.append("duckdb: %s column %s type %s, not %s" %
                                   (t["path"], c["name"], ty, c["duckdb"]))
                columns = {}
                for k, c in enumerate(t["columns"]):
                    vals = [r[k] for r in o["rows"]]
                    if c["duckdb"] not in ("VARCHAR", "BOOLEAN"):
                        vals = [None if v is None else int(v) for v in vals]
                    columns[c["name"]] = vals
                count = len(o["rows"])
                if o["count"] != count:
                    bad.append("duckdb: %s: count(*) %d, %d rows read" %
                               (t["path"], o["count"], count))
            if count != t["nr-rows"] or count != len(expect):
                bad.append("%s: %s: %d rows, meta.json %d, JSON %d" %
                           (reader, t["path"], count, t["nr-rows"],
                            len(expect)))
                continue
            nv += compare(reader, t, columns, expect, hexmode, bad)
            nr += count
        print("%s: %d tables, %d rows, %d values checked, %d equal" %
              (reader, len(tables), nr, nv, nv - (len(bad) - before)))
    if bad:
        raise Fail("\n".join(bad))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Fail as e:
        print(e)
        sys.exit(1)
