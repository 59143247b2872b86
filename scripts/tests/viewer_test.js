// SPDX-License-Identifier: GPL-2.0
/*
 * Opens "etwctl export --format chrome-json --slices" files in
 * speedscope, a real trace viewer, in headless Chromium, and checks what
 * it shows against each file: the file is imported (not empty, no error),
 * and each thread of the file is a profile whose sandwich table lists
 * that thread's events by name and args.  A file in speedscope's own
 * format ("etwctl export --format speedscope") shows first the profile
 * its activeProfileIndex names, whose sandwich table (sorted by self
 * weight) lists the ten frames of most self weight in that profile.  Prints TAP
 * with kselftest-style totals, for scripts/testsum.py.  The Windows sample
 * files must also show rows of the values they hold (LITERAL_ROWS).
 *
 *   node viewer_test.js SPEEDSCOPE_DIR SCREENSHOTS NAME=TRACE.json|NAME=SKIP:REASON...
 *
 * Each file's results are named viewer.NAME.*; SCREENSHOTS-NAME-N.png is
 * what its profile N (thread N) looks like.  A NAME=SKIP:REASON argument
 * is one skipped result, viewer.NAME, with REASON.
 *
 * playwright-core comes from NODE_PATH; the browser is /usr/bin/chromium
 * (CHROMIUM overrides).  Files are served from 127.0.0.1 only.
 */
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');
const { chromium } = require('playwright-core');

const [viewerDir, shotPrefix, ...traceArgs] = process.argv.slice(2);
const results = [];

function check(name, ok, detail, skip) {
	results.push({ name, ok, detail, skip });
}

/* speedscope's index.html and assets, and the trace at /NAME.json. */
function serve(tracePath) {
	const types = { '.html': 'text/html', '.js': 'text/javascript',
		'.css': 'text/css', '.json': 'application/json',
		'.wasm': 'application/wasm' };
	const server = http.createServer((req, res) => {
		const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
		const file = url === '/' + path.basename(tracePath) ? tracePath :
			path.join(viewerDir, path.normalize(url).replace(/^\/+/, ''));
		fs.readFile(file, (err, data) => {
			if (err) {
				res.writeHead(404);
				res.end();
				return;
			}
			res.writeHead(200, { 'Content-Type':
				types[path.extname(file)] || 'application/octet-stream' });
			res.end(data);
		});
	});
	return new Promise(resolve =>
		server.listen(0, '127.0.0.1', () => resolve(server)));
}

/*
 * What speedscope should show, from the file: its threads, sorted as
 * speedscope sorts them (by zero-padded pid and tid), each with the frame
 * names speedscope builds from its events ("name" and the args as JSON).
 */
function expected(tracePath) {
	const trace = JSON.parse(fs.readFileSync(tracePath, 'utf8'));

	if (trace.profiles)
		return expectedProfile(trace);
	const events = trace.traceEvents.filter(e => e.ph === 'X');
	const key = e => String(e.pid).padStart(10, '0') + ':' +
		String(e.tid).padStart(10, '0');
	const threads = new Map();

	if (!events.length)
		throw new Error('no "X" event in ' + tracePath);
	for (const e of events) {
		if (!threads.has(key(e)))
			threads.set(key(e), { pid: e.pid, tid: e.tid, names: new Set() });
		threads.get(key(e)).names.add(`${e.name} ${JSON.stringify(e.args)}`);
	}
	return [...threads.keys()].sort().map(k => threads.get(k)).map(t => ({
		id: `thread_${t.pid}_${t.tid}`,
		label: `pid ${t.pid}, tid ${t.tid}`,
		names: t.names,
	}));
}

/*
 * A speedscope file: its shown profile, with the ten frames of most self
 * weight (a sample's weight is its innermost frame's, the last).
 */
function expectedProfile(trace) {
	const i = trace.activeProfileIndex || 0;
	const p = trace.profiles[i];
	const self = new Map();

	if (!p || !p.samples.length)
		throw new Error('no samples in the shown profile');
	p.samples.forEach((s, k) => {
		const f = s[s.length - 1];

		self.set(f, (self.get(f) || 0) + p.weights[k]);
	});
	const top = [...self.entries()].sort((a, b) => b[1] - a[1])
		.slice(0, 10).map(e => trace.shared.frames[e[0]].name);
	const want = [{ id: 'profile', names: new Set(top), only: true,
		label: `${p.name} (${i + 1}/${trace.profiles.length})` }];

	want.title = trace.name;
	return want;
}

/*
 * Rows the Windows sample files must show, from what the files hold (read
 * from their bytes by an independent script: windows_values.json, and the
 * CLR values userlib/tests/tdh_clr_gc_test.c expects), not from the
 * export: expected() takes its rows from the exported file, and so from
 * etwctl's decoder.  speedscope reads numbers as doubles, as JSON.parse()
 * reads windows_values.json's.
 */
const PRIMITIVE = JSON.parse(fs.readFileSync(path.join(__dirname,
	'windows_values.json'), 'utf8'))['primitive-types.etl'];
const row = (name, args) => `${name} ${JSON.stringify(args)}`;
const gcStart = (count, depth) => row('GCStart', { Count: count,
	Depth: depth, Reason: 'Induced', Type: 'NonConcurrentGC',
	ClrInstanceID: 8, ClientSequenceNumber: 0 });
const LITERAL_ROWS = {
	windows: {
		[`thread_${PRIMITIVE.first.pid}_${PRIMITIVE.first.tid}`]:
			PRIMITIVE.events.map(v => row(PRIMITIVE.event,
				Object.fromEntries(PRIMITIVE.fields.map(
					(k, i) => [k, v[i]])))),
		thread_179596_168672: [gcStart(1, 1), gcStart(2, 2),
			row('GCAllocationTick', { AllocationAmount: '0x1AB80',
				AllocationKind: 'Small', ClrInstanceID: 8,
				AllocationAmount64: '0x1AB80',
				TypeID: '0x7FFB486CF828',
				TypeName: 'System.Text.StringBuilder',
				HeapIndex: 0, Address: '0x1B0F3833850',
				ObjectSize: '0x30' })],
	},
};

/*
 * The literal rows of file @name: each must be among the rows expected()
 * read from the export, and is then also looked for on the page.
 */
function addLiteralRows(name, want) {
	for (const [id, rows] of Object.entries(LITERAL_ROWS[name] || {})) {
		const t = want.find(w => w.id === id);
		const absent = t ? rows.filter(r => !t.names.has(r)) : rows;

		check(`viewer.${name}.${id}.holds_the_files_values`,
			!absent.length, `not in the export: ${JSON.stringify(absent)}`);
		if (t)
			rows.forEach(r => t.names.add(r));
	}
}

async function run() {
	let browser;

	try {
		browser = await chromium.launch({
			executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
			args: ['--no-sandbox'],
		});
		for (const arg of traceArgs) {
			const name = arg.slice(0, arg.indexOf('='));
			const value = arg.slice(name.length + 1);

			if (value.startsWith('SKIP:'))
				check(`viewer.${name}`, true, value.slice(5), true);
			else
				await one(browser, name, value);
		}
	} finally {
		if (browser)
			await browser.close();
	}
}

async function one(browser, name, tracePath) {
	let want, server;

	try {
		want = expected(tracePath);
	} catch (e) {
		check(`viewer.${name}.reads`, false, e.message);
		return;
	}
	addLiteralRows(name, want);
	server = await serve(tracePath);
	try {
		await show(browser, server.address().port, name, tracePath, want);
	} finally {
		server.close();
	}
}

/* Load the trace, keep a screenshot, and check what the page shows. */
async function show(browser, port, name, tracePath, want) {
	const file = path.basename(tracePath);
	/* Tall enough for every row of the sandwich table to be laid out. */
	const page = await browser.newPage({ viewport: { width: 1400, height: 3000 } });
	const dialogs = [];

	page.on('dialog', d => {
		dialogs.push(d.message());
		d.dismiss();
	});
	await page.goto(`http://127.0.0.1:${port}/index.html` +
		`#profileURL=/${file}&view=sandwich`);
	try {
		await page.waitForFunction(() => document.title.includes(' - '),
			null, { timeout: 30000 });
	} catch (e) {
		/* The checks below say what was shown instead. */
	}
	await page.waitForTimeout(500);

	const title = await page.title();
	check(`viewer.${name}.imports`,
		title === `${want.title || file} - speedscope` &&
		!dialogs.length, `title "${title}", dialogs ${JSON.stringify(dialogs)}`);

	/* Each profile in turn ("n" shows the next): its name and rows. */
	for (let i = 0; i < want.length; i++) {
		const t = want[i];
		const label = t.only ? t.label :
			`${t.label} (${i + 1}/${want.length})`;

		if (i) {
			await page.keyboard.press('n');
			await page.waitForTimeout(300);
		}
		await page.screenshot({ path: `${shotPrefix}-${name}-${i + 1}.png` });
		const body = await page.innerText('body');
		const rows = new Set(body.split('\n').map(l => l.trim())
			.filter(l => t.names.has(l)));
		const missing = [...t.names].filter(n => !rows.has(n));

		check(`viewer.${name}.${t.id}`,
			body.includes(label) && !missing.length,
			`want "${label}" and ${t.names.size} rows; ` +
			`${rows.size} shown, missing ${JSON.stringify(missing)}`);
	}
}

run().catch(e => check('viewer.runs', false, e.message)).finally(() => {
	const failed = results.filter(r => !r.ok).length;
	const skipped = results.filter(r => r.skip).length;

	console.log('TAP version 13');
	console.log(`1..${results.length}`);
	results.forEach((r, i) => {
		if (!r.ok || process.env.VERBOSE)
			console.log(`# ${r.name}: ${r.detail.replace(/\n/g, '\n# ')}`);
		console.log(`${r.ok ? 'ok' : 'not ok'} ${i + 1} ${r.name}` +
			(r.skip ? ` # SKIP ${r.detail}` : ''));
	});
	console.log(`# Totals: pass:${results.length - failed - skipped} ` +
		`fail:${failed} xfail:0 xpass:0 skip:${skipped} error:0`);
	process.exitCode = failed ? 1 : 0;
});
