#!/usr/bin/env node
// chrome-tracks.js: read tdat-to-json --chrome output as the viewers do
// (JSON.parse, so every number a double) and check that every track is
// well-formed the way they compute it:
//
//   plain       a.ts + a.dur <= b.ts for adjacent X slices of a track
//               (sorted by ts, the longer first on a tie, as speedscope
//               does), the sum a viewer makes of an X event's end;
//   speedscope  the same after speedscope's rebasing of each track on its
//               first ts: (a.ts - m) + a.dur <= (b.ts - m);
//   perfetto    the same in integer nanoseconds, Perfetto's
//               llround(us * 1000) of ts and dur;
//   B/E         every E ends the B on top of its track's stack, by name,
//               and no B is left open;
//   exact       args.common_ts and args.common_dur (nanoseconds, exact;
//               a decimal string beyond 2^53) give ts and dur back:
//               ts * 1000 within half a nanosecond of common_ts, dur no
//               longer than common_dur and at most 3 ns shorter, and the
//               exact slices do not overlap either (beyond 2^53 ns, where
//               no double holds every nanosecond: see exactBeyond);
//
// usage: node chrome-tracks.js [--count] FILE...
// Prints one line per file with the counts; exits 1 when any track is
// not well-formed (with --count, only when a file cannot be read).
'use strict';
const fs = require('fs');

const args = process.argv.slice(2);
const countOnly = args[0] === '--count';
if (countOnly)
	args.shift();
if (args.length === 0) {
	process.stderr.write('usage: node chrome-tracks.js [--count] FILE...\n');
	process.exit(2);
}

function big(v) {
	return typeof v === 'string' ? BigInt(v) : BigInt(Math.round(v));
}

// Beyond 2^53 ns (a clock counted from 1970, an LTTng trace's) no double
// holds every nanosecond: ts must be the double nearest the exact
// microseconds (what JSON.parse makes of the exact text), and dur no
// longer than the exact one and shorter by at most two steps of a double
// at the slice's end (the writer shortens it so that the sums viewers make
// do not pass the next start).
function exactBeyond(a, ts, d) {
	const us = Number(`${ts / 1000n}.${String(ts % 1000n).padStart(3, '0')}`);
	const ulp = 2 ** (Math.floor(Math.log2(a.ts + a.dur)) - 52);
	return a.ts === us && d >= -1e-6 && d <= 2 * ulp * 1000 + 3.5;
}

function check(file) {
	const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
	const ev = Array.isArray(doc) ? doc : doc.traceEvents;
	const tracks = new Map();
	for (const e of ev) {
		if (e.ph !== 'X' && e.ph !== 'B' && e.ph !== 'E')
			continue;
		const k = e.pid + ':' + e.tid;
		if (!tracks.has(k))
			tracks.set(k, []);
		tracks.get(k).push(e);
	}
	const n = {slices: 0, tracks: tracks.size, plain: 0, speedscope: 0,
	    perfetto: 0, unmatched: 0, exact: 0, noargs: 0};
	const first = [];
	const note = (what, a, b) => {
		if (first.length < 5)
			first.push(`${what}: ${a.name} ts=${a.ts} dur=${a.dur}` +
			    (b ? ` then ${b.name} ts=${b.ts}` : ''));
	};
	for (const [, list] of tracks) {
		let m = Number.MAX_SAFE_INTEGER;
		for (const e of list)
			m = Math.min(m, e.ts);
		const xs = list.filter(e => e.ph === 'X');
		xs.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
		n.slices += xs.length;
		for (const a of xs) {
			const x = a.args || {};
			if (x.common_ts === undefined || x.common_dur === undefined) {
				n.noargs++;
				continue;
			}
			const ts = big(x.common_ts), dur = big(x.common_dur);
			const d = Number(dur) - a.dur * 1000;
			if (ts >= 2n ** 53n ? !exactBeyond(a, ts, d) :
			    Math.abs(a.ts * 1000 - Number(ts)) > 0.5 ||
			    d < -1e-6 || d > 3.5) {
				n.exact++;
				note('exact', a);
			}
		}
		for (let i = 1; i < xs.length; i++) {
			const a = xs[i - 1], b = xs[i];
			if (a.ts + a.dur > b.ts) {
				n.plain++;
				note('plain', a, b);
			}
			if ((a.ts - m) + a.dur > (b.ts - m)) {
				n.speedscope++;
				note('speedscope', a, b);
			}
			if (Math.round(a.ts * 1000) + Math.round(a.dur * 1000) >
			    Math.round(b.ts * 1000)) {
				n.perfetto++;
				note('perfetto', a, b);
			}
			const xa = a.args || {}, xb = b.args || {};
			if (xa.common_ts !== undefined && xb.common_ts !== undefined &&
			    big(xa.common_ts) + big(xa.common_dur) > big(xb.common_ts)) {
				n.exact++;
				note('exact overlap', a, b);
			}
		}
		const be = list.filter(e => e.ph !== 'X');
		be.sort((a, b) => a.ts - b.ts);
		const stack = [];
		for (const e of be) {
			if (e.ph === 'B')
				stack.push(e);
			else if (stack.length && stack[stack.length - 1].name === e.name)
				stack.pop();
			else {
				n.unmatched++;
				note('unmatched E', e);
			}
		}
		n.unmatched += stack.length;
	}
	const bad = n.plain + n.speedscope + n.perfetto + n.unmatched +
	    n.exact + n.noargs;
	console.log(`${file}: ${n.slices} slices on ${n.tracks} tracks; ` +
	    `ends past the next start: ${n.plain} plain, ${n.speedscope} ` +
	    `speedscope, ${n.perfetto} perfetto; ${n.unmatched} unmatched B/E; ` +
	    `${n.exact} inexact, ${n.noargs} without exact args`);
	for (const s of first)
		console.log('  ' + s);
	return bad;
}

let status = 0;
for (const f of args) {
	try {
		if (check(f) && !countOnly)
			status = 1;
	} catch (e) {
		console.log(`${f}: ${e.message}`);
		status = 1;
	}
}
process.exit(status);
