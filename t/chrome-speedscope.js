#!/usr/bin/env node
// chrome-speedscope.js: load Chrome trace files into speedscope under
// headless Chromium, as a person would open them, and check what its
// importer made of them.
//
// usage: node chrome-speedscope.js SPEEDSCOPE_RELEASE_DIR CHROMIUM FILE...
//
// SPEEDSCOPE_RELEASE_DIR is the dist/release folder of the npm package
// speedscope; it is served on 127.0.0.1 only, with the FILEs, and each
// FILE is opened as index.html#profileURL=... .  Chromium is driven over
// the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no
// package).  For each FILE the page's Export button is pressed and the
// profile it saves (speedscope's own file format) is read back, then:
//
//   - the page's console has no warning or error, and no exception was
//     thrown (speedscope's trace importer warns when an end does not
//     match the slice on top of its stack, or a slice is left open);
//   - the page shows no error;
//   - there is one profile per track of X/B/E events of FILE (they come
//     in the order of pid and tid), and in each the frames open and
//     close one after another, never one inside another (a staircase of
//     nested slices fails), each slice of the track in its order, named
//     as speedscope names it (the name, then the args as JSON).
//
// Messages Chromium logs about its own rendering (software WebGL) are not
// the page's and are left out.
//
// One line per FILE says what was found; exit 0 when every FILE passes,
// 1 when one does not, 2 when the browser could not be driven.
'use strict';
const cp = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');

const [dir, chromium, ...files] = process.argv.slice(2);
if (!dir || !chromium || files.length === 0) {
	process.stderr.write('usage: node chrome-speedscope.js ' +
	    'SPEEDSCOPE_RELEASE_DIR CHROMIUM FILE...\n');
	process.exit(2);
}
const TIMEOUT = Number(process.env.SPEEDSCOPE_TIMEOUT || 120) * 1000;

function die(msg) {
	process.stderr.write(`chrome-speedscope.js: ${msg}\n`);
	cleanup();
	process.exit(2);
}

// ---- the server: speedscope's release folder and the files, on
// 127.0.0.1 only
const types = {'.html': 'text/html', '.js': 'text/javascript',
    '.css': 'text/css', '.json': 'application/json',
    '.wasm': 'application/wasm', '.png': 'image/png',
    '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.txt': 'text/plain'};
const server = http.createServer((req, res) => {
	const u = decodeURIComponent(new URL(req.url, 'http://x').pathname);
	let f = null;
	const m = /^\/trace\/(\d+)\.json$/.exec(u);
	if (m && Number(m[1]) < files.length)
		f = files[Number(m[1])];
	else if (!u.includes('..'))
		f = path.join(dir, u === '/' ? 'index.html' : u);
	fs.readFile(f || '/nonexistent', (err, data) => {
		if (err) {
			res.writeHead(404);
			res.end();
			return;
		}
		res.writeHead(200, {'Content-Type':
		    types[path.extname(f)] || 'application/octet-stream'});
		res.end(data);
	});
});

// ---- the browser, over the DevTools protocol on fds 3 and 4
let browser = null, profileDir = null;
function cleanup() {
	if (browser && browser.exitCode === null)
		browser.kill('SIGKILL');
	if (profileDir)
		fs.rmSync(profileDir, {recursive: true, force: true});
	server.close();
}

let nextId = 1;
const pending = new Map();
const listeners = [];
function send(method, params = {}, sessionId) {
	const id = nextId++;
	const msg = {id, method, params};
	if (sessionId)
		msg.sessionId = sessionId;
	browser.stdio[3].write(JSON.stringify(msg) + '\0');
	return new Promise((resolve, reject) => {
		pending.set(id, {resolve, reject, method});
	});
}

function startBrowser() {
	profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tdat-chromium.'));
	const flags = ['--headless', '--remote-debugging-pipe',
	    `--user-data-dir=${profileDir}`, '--no-first-run',
	    '--no-default-browser-check', '--disable-gpu',
	    '--disable-dev-shm-usage', '--disable-extensions',
	    '--disable-background-networking', '--disable-sync',
	    '--mute-audio', 'about:blank'];
	if (process.getuid && process.getuid() === 0)
		flags.unshift('--no-sandbox');	// root: Chromium refuses else
	browser = cp.spawn(chromium, flags,
	    {stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe']});
	let err = '';
	browser.stdio[2].on('data', d => { err = (err + d).slice(-4000); });
	browser.on('exit', (code, sig) => {
		if (pending.size)
			die(`${chromium} exited (${code ?? sig}) while waiting ` +
			    `for ${[...pending.values()][0].method}:\n${err}`);
	});
	browser.on('error', e => die(`${chromium}: ${e.message}`));
	let buf = '';
	browser.stdio[4].on('data', d => {
		buf += d;
		let i;
		while ((i = buf.indexOf('\0')) >= 0) {
			const msg = JSON.parse(buf.slice(0, i));
			buf = buf.slice(i + 1);
			if (msg.id !== undefined && pending.has(msg.id)) {
				const p = pending.get(msg.id);
				pending.delete(msg.id);
				if (msg.error)
					p.reject(new Error(`${p.method}: ` +
					    msg.error.message));
				else
					p.resolve(msg.result);
			} else if (msg.method) {
				for (const l of listeners)
					l(msg);
			}
		}
	});
}

const sleep = ms => new Promise(r => setTimeout(r, ms));

// ---- what FILE holds: its tracks of X/B/E events in speedscope's
// order (by pid, then tid), each the frame names of its slices in the
// order they begin (by ts, the longer first on a tie, as speedscope
// sorts them): the name and, after a space, the args as JSON.
function tracksOf(file) {
	const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
	const ev = Array.isArray(doc) ? doc : doc.traceEvents;
	const tracks = new Map(), names = new Map();
	for (const e of ev) {
		const k = `${e.pid}:${e.tid}`;
		if (e.ph === 'X' || e.ph === 'B' || e.ph === 'E') {
			if (!tracks.has(k))
				tracks.set(k, {pid: e.pid, tid: e.tid, ev: []});
			if (e.ph !== 'E')
				tracks.get(k).ev.push(e);
		}
		if (e.ph === 'M' && e.name === 'thread_name')
			names.set(k, e.args.name);
	}
	const list = [...tracks.values()];
	list.sort((a, b) => a.pid - b.pid || a.tid - b.tid);
	for (const t of list) {
		t.name = names.get(`${t.pid}:${t.tid}`) ||
		    `pid ${t.pid}, tid ${t.tid}`;
		t.ev.sort((a, b) => a.ts - b.ts ||
		    (b.dur ?? 0) - (a.dur ?? 0));
		t.frames = t.ev.map(e => (e.name || '(unnamed)') +
		    (e.args ? ' ' + JSON.stringify(e.args) : ''));
	}
	return list;
}

// ---- one FILE
async function check(k, file, session) {
	const console_ = [];
	const onEvent = msg => {
		if (msg.sessionId !== session)
			return;
		if (msg.method === 'Runtime.consoleAPICalled' &&
		    (msg.params.type === 'warning' || msg.params.type === 'error'))
			console_.push(`console.${msg.params.type}: ` +
			    msg.params.args.map(a => a.value ?? a.description)
			    .join(' ').slice(0, 300));
		else if (msg.method === 'Runtime.exceptionThrown')
			console_.push('exception: ' +
			    (msg.params.exceptionDetails.exception?.description ??
			    msg.params.exceptionDetails.text).slice(0, 300));
		else if (msg.method === 'Log.entryAdded' &&
		    msg.params.entry.source !== 'rendering' &&
		    (msg.params.entry.level === 'error' ||
		    msg.params.entry.level === 'warning'))
			console_.push(`log.${msg.params.entry.level} (${msg.params.entry.source}): ` +
			    msg.params.entry.text.slice(0, 300));
	};
	listeners.push(onEvent);
	const {port} = server.address();
	const base = `http://127.0.0.1:${port}`;
	const title = path.basename(file);
	await send('Page.navigate', {url: 'about:blank'}, session);
	await send('Page.navigate', {url: `${base}/index.html#profileURL=` +
	    encodeURIComponent(`${base}/trace/${k}.json`) +
	    `&title=${encodeURIComponent(title)}`}, session);
	const evaluate = async expr => {
		const r = await send('Runtime.evaluate', {expression: expr,
		    awaitPromise: true, returnByValue: true}, session);
		if (r.exceptionDetails)
			throw new Error(`evaluate: ${r.exceptionDetails.text}`);
		return r.result.value;
	};
	// loaded: the toolbar has its Export button and no spinner
	const t0 = Date.now();
	let state;
	for (;;) {
		state = await evaluate(`(() => {
			const t = document.body ? document.body.innerText : '';
			const ex = [...document.querySelectorAll('div')]
			    .find(d => d.textContent.trim().endsWith('Export') &&
			    d.children.length <= 1);
			return {text: t.slice(0, 2000), export: !!ex,
			    error: /went wrong|Unrecognized format|error/i.test(t)};
		})()`);
		if (state.export || state.error || Date.now() - t0 > TIMEOUT)
			break;
		await sleep(200);
	}
	if (!state.export) {
		listeners.splice(listeners.indexOf(onEvent), 1);
		return {file, ok: false, why: state.error ?
		    `the page shows an error: ${state.text.slice(0, 300)}` :
		    `not loaded in ${TIMEOUT / 1000} s`, console_};
	}
	const loadMs = Date.now() - t0;
	const saved = await evaluate(`(async () => {
		window.__tdatBlobs = [];
		const orig = URL.createObjectURL;
		URL.createObjectURL = b => { window.__tdatBlobs.push(b);
		    return orig.call(URL, b); };
		const ex = [...document.querySelectorAll('div')]
		    .find(d => d.textContent.trim().endsWith('Export') &&
		    d.children.length <= 1);
		ex.click();
		for (let i = 0; i < 100 && !window.__tdatBlobs.length; i++)
			await new Promise(r => setTimeout(r, 100));
		return window.__tdatBlobs.length ?
		    await window.__tdatBlobs[0].text() : null;
	})()`);
	await sleep(300);	// late console messages
	listeners.splice(listeners.indexOf(onEvent), 1);
	if (saved === null)
		return {file, ok: false, why: 'Export saved nothing', console_};
	const prof = JSON.parse(saved);
	if (process.env.SPEEDSCOPE_DEBUG)
		fs.writeFileSync(`${process.env.SPEEDSCOPE_DEBUG}.${k}.json`, saved);
	// The saved profiles carry the page's title as their name: they
	// are the tracks in speedscope's order.
	const tracks = tracksOf(file);
	const frames = prof.shared.frames;
	const problems = [];
	let slices = 0, nested = 0, maxDepth = 0;
	if (prof.profiles.length !== tracks.length)
		problems.push(`${prof.profiles.length} profiles, the file ` +
		    `has ${tracks.length} tracks of slices`);
	prof.profiles.forEach((p, i) => {
		const t = tracks[i] || {name: `profile ${i}`, frames: []};
		let depth = 0, opens = 0, order = 0;
		const stack = [];
		for (const e of p.events) {
			if (e.type === 'O') {
				if (depth > 0)
					nested++;
				if (frames[e.frame]?.name !== t.frames[opens] &&
				    order++ < 3)
					problems.push(`${t.name}: slice ${opens} ` +
					    `is ${frames[e.frame]?.name}, in the ` +
					    `file ${t.frames[opens]}`);
				depth++;
				opens++;
				maxDepth = Math.max(maxDepth, depth);
				stack.push(e.frame);
			} else {
				if (stack.pop() !== e.frame)
					problems.push(`${t.name}: closes ` +
					    `${frames[e.frame]?.name} out of order`);
				depth--;
			}
		}
		if (stack.length)
			problems.push(`${t.name}: ${stack.length} left open`);
		if (opens !== t.frames.length)
			problems.push(`${t.name}: ${opens} slices, the file ` +
			    `has ${t.frames.length}`);
		slices += opens;
	});
	if (nested)
		problems.push(`${nested} slices opened inside another ` +
		    `(deepest ${maxDepth})`);
	const ok = problems.length === 0 && console_.length === 0;
	return {file, ok, loadMs, profiles: prof.profiles.length, slices,
	    maxDepth, problems, console_};
}

async function main() {
	await new Promise(r => server.listen(0, '127.0.0.1', r));
	startBrowser();
	const timer = setTimeout(() => die('timed out'),
	    TIMEOUT * (files.length + 1));
	const version = await send('Browser.getVersion');
	const {targetId} = await send('Target.createTarget',
	    {url: 'about:blank'});
	const {sessionId} = await send('Target.attachToTarget',
	    {targetId, flatten: true});
	await send('Browser.setDownloadBehavior', {behavior: 'deny'});
	await send('Runtime.enable', {}, sessionId);
	await send('Page.enable', {}, sessionId);
	await send('Log.enable', {}, sessionId);
	const release = (() => {
		try {
			return fs.readFileSync(path.join(dir, 'release.txt'),
			    'utf8').split('\n')[0];
		} catch (e) {
			return 'speedscope';
		}
	})();
	console.log(`${version.product}, ${release}`);
	let bad = 0;
	for (let k = 0; k < files.length; k++) {
		const r = await check(k, files[k], sessionId);
		if (!r.ok)
			bad++;
		if (r.why)
			console.log(`${r.file}: FAIL: ${r.why}`);
		else
			console.log(`${r.file}: ${r.ok ? 'ok' : 'FAIL'}: ` +
			    `${r.profiles} profiles, ${r.slices} slices, ` +
			    `deepest stack ${r.maxDepth}, ` +
			    `${r.console_.length} console warnings or errors ` +
			    `(loaded in ${r.loadMs} ms)`);
		for (const s of (r.problems || []).slice(0, 10))
			console.log(`  ${s}`);
		for (const s of r.console_.slice(0, 10))
			console.log(`  ${s}`);
		if (r.console_.length > 10)
			console.log(`  ... ${r.console_.length - 10} more`);
	}
	clearTimeout(timer);
	const gone = new Promise(r => browser.once('exit', r));
	await send('Browser.close').catch(() => {});
	await Promise.race([gone, sleep(5000)]);
	cleanup();
	process.exit(bad ? 1 : 0);
}

main().catch(e => die(e.stack || e.message));
