#!/usr/bin/env python3
"""json-validate.py: validate tdat-to-json output against a JSON Schema.

    json-validate.py [--lines] [--chrome] SCHEMA [FILE]

Reads FILE (default stdin) as one JSON document, or with --lines as JSON
Lines (one document per line, every line validated).  The input must be
strict JSON in UTF-8: invalid UTF-8, NaN/Infinity, or duplicate keys fail.
--chrome adds the checks of the Trace Event Format that a schema cannot
state: complete events have dur >= 0, and every pid/tid that carries
events has its process_name/thread_name metadata.
Prints "ok: N documents" and exits 0, or prints the first errors and
exits 1.
"""
import json
import sys

import jsonschema


def no_dups(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise ValueError("duplicate key %r" % k)
        seen.add(k)
    return dict(pairs)


def bad_constant(name):
    raise ValueError("not JSON: %s" % name)


def load(text):
    return json.loads(text, object_pairs_hook=no_dups,
                      parse_constant=bad_constant)


def chrome_checks(doc):
    errs = []
    named = set()
    used = set()
    for ev in doc.get("traceEvents", []):
        if ev.get("ph") == "M" and ev.get("name") == "thread_name":
            named.add((ev["pid"], ev["tid"]))
        elif ev.get("ph") != "M":
            used.add((ev["pid"], ev["tid"]))
    for pt in sorted(used - named):
        errs.append("pid %d tid %d has events but no thread_name" % pt)
    return errs


def main(argv):
    lines = chrome = False
    args = []
    for a in argv[1:]:
        if a == "--lines":
            lines = True
        elif a == "--chrome":
            chrome = True
        else:
            args.append(a)
    if not args or len(args) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as fp:
        schema = json.load(fp)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    data = open(args[1], "rb").read() if len(args) > 1 else \
        sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        print("invalid UTF-8: %s" % e)
        return 1
    docs = []
    try:
        if lines:
            for i, line in enumerate(text.split("\n")):
                if line == "" and i == text.count("\n"):
                    continue
                docs.append((i + 1, load(line)))
        else:
            docs.append((1, load(text)))
    except ValueError as e:
        print("line %d: %s" % (len(docs) + 1, e))
        return 1
    nerr = 0
    for n, doc in docs:
        for err in validator.iter_errors(doc):
            nerr += 1
            if nerr <= 10:
                path = "/".join(str(p) for p in err.absolute_path)
                print("document %d: /%s: %s" % (n, path, err.message[:300]))
        if chrome:
            for msg in chrome_checks(doc):
                nerr += 1
                if nerr <= 10:
                    print("document %d: %s" % (n, msg))
    if nerr:
        print("%d errors in %d documents" % (nerr, len(docs)))
        return 1
    print("ok: %d documents" % len(docs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
