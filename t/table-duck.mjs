// table-duck.mjs: read every table of a tdat-to-table directory with
// DuckDB (@duckdb/node-api), as meta.json says:
//
//   SELECT * FROM read_csv_auto(PATH, types = {...}, allow_quoted_nulls = false)
//
// and write one JSON line per table: {"path", "names", "types", "count",
// "rows"}, with integers as decimal strings (exact beyond 2^53) and
// "count" from SELECT count(*).  t/table-check.py --duck compares them
// with tdat-to-json's values.
//
//   NODE_PATH=DIR/node_modules node t/table-duck.mjs DIR OUT
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const [dir, out] = process.argv.slice(2);
// The package lives in a cache outside the repository: resolve it from
// NODE_PATH (an ES module import does not look there).
const require = createRequire(path.join(process.env.NODE_PATH || '.', 'x.js'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const fd = fs.openSync(out, 'w');
const q = (s) => "'" + s.replace(/'/g, "''") + "'";
for (const t of meta['events-info']) {
  const p = path.join(dir, t.path);
  const types = Object.entries(t.duckdb_types)
    .map(([k, v]) => `${q(k)}: ${q(v)}`).join(', ');
  const src = `read_csv_auto(${q(p)}, types = {${types}}, allow_quoted_nulls = false)`;
  const r = await con.runAndReadAll(`SELECT * FROM ${src}`);
  const c = await con.runAndReadAll(`SELECT count(*) FROM ${src}`);
  const rows = r.getRowsJS().map((row) => row.map((v) =>
    typeof v === 'bigint' ? v.toString() : v));
  const line = JSON.stringify({
    path: t.path,
    names: r.columnNames(),
    types: r.columnTypes().map((ty) => ty.toString()),
    count: Number(c.getRowsJS()[0][0]),
    rows,
  });
  fs.writeSync(fd, line + '\n');
}
fs.closeSync(fd);
