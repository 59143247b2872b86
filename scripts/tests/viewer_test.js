// SPDX-License-Identifier: GPL-2.0
/*
 * Opens an "etwctl export --format chrome-json --slices" file in
 * speedscope, a real trace viewer, in headless Chromium, and checks what
 * it shows against the file: the file is imported (not empty, no error),
 * one profile per thread of the file, and the first thread's events by
 * name and args in the sandwich table.  Prints TAP with kselftest-style
 * totals, for scripts/testsum.py.
 *
 *   node viewer_test.js SPEEDSCOPE_DIR TRACE.json SCREENSHOT.png
 *
 * playwright-core comes from NODE_PATH; the browser is /usr/bin/chromium
 * (CHROMIUM overrides).  Files are served from 127.0.0.1 only.
 */
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');
const { chromium } = require('playwright-core');

const [viewerDir, tracePath, shotPath] = process.argv.slice(2);
const results = [];

function check(name, ok, detail) {
	results.push({ name, ok, detail });
}

/* speedscope's index.html and assets, and the trace at /trace.json. */
function serve() {
	const types = { '.html': 'text/html', '.js': 'text/javascript',
		'.css': 'text/css', '.json': 'application/json',
		'.wasm': 'application/wasm' };
	const server = http.createServer((req, res) => {
		const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
		const file = url === '/trace.json' ? tracePath :
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
 * What speedscope should show, from the file: its threads ("pid P, tid
 * T", sorted as speedscope sorts them) and, for the first, the frame
 * names speedscope builds ("name" and the args as JSON).
 */
function expected() {
	const trace = JSON.parse(fs.readFileSync(tracePath, 'utf8'));
	const events = trace.traceEvents.filter(e => e.ph === 'X');
	const key = e => String(e.pid).padStart(10, '0') + ':' +
		String(e.tid).padStart(10, '0');
	const threads = [...new Set(events.map(key))].sort();
	const first = events.filter(e => key(e) === threads[0]);
	const names = new Set(first.map(e =>
		`${e.name} ${JSON.stringify(e.args)}`));
	if (!first.length)
		throw new Error('no "X" event in ' + tracePath);
	return { threads, first: first[0], names: [...names] };
}

async function run() {
	const want = expected();
	const server = await serve();
	let browser;

	try {
		browser = await chromium.launch({
			executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
			args: ['--no-sandbox'],
		});
		await show(browser, server.address().port, want);
	} finally {
		if (browser)
			await browser.close();
		server.close();
	}
}

/* Load the trace, keep a screenshot, and check what the page shows. */
async function show(browser, port, want) {
	const page = await browser.newPage({ viewport: { width: 1400, height: 600 } });
	const dialogs = [];

	page.on('dialog', d => {
		dialogs.push(d.message());
		d.dismiss();
	});
	await page.goto(`http://127.0.0.1:${port}/index.html` +
		'#profileURL=/trace.json&view=sandwich');
	try {
		await page.waitForFunction(() => document.title.includes(' - '),
			null, { timeout: 30000 });
	} catch (e) {
		/* The checks below say what was shown instead. */
	}
	await page.waitForTimeout(500);
	await page.screenshot({ path: shotPath });

	const title = await page.title();
	const text = await page.innerText('body');
	check('viewer.imports', title === 'trace.json - speedscope' &&
		!dialogs.length, `title "${title}", dialogs ${JSON.stringify(dialogs)}`);

	const thread = `pid ${want.first.pid}, tid ${want.first.tid} ` +
		`(1/${want.threads.length})`;
	check('viewer.one_profile_per_thread', text.includes(thread),
		`want "${thread}"`);

	const rows = text.split('\n').map(l => l.trim())
		.filter(l => l.startsWith(want.first.name + ' '));
	const missing = want.names.filter(n => !rows.includes(n));
	check('viewer.events_by_name_and_args',
		rows.length === want.names.length && !missing.length,
		`${rows.length} rows of ${want.first.name}, want ` +
		`${want.names.length}; missing ${JSON.stringify(missing)}`);
}

run().catch(e => check('viewer.runs', false, e.message)).finally(() => {
	const failed = results.filter(r => !r.ok).length;

	console.log('TAP version 13');
	console.log(`1..${results.length}`);
	results.forEach((r, i) => {
		if (!r.ok || process.env.VERBOSE)
			console.log(`# ${r.name}: ${r.detail.replace(/\n/g, '\n# ')}`);
		console.log(`${r.ok ? 'ok' : 'not ok'} ${i + 1} ${r.name}`);
	});
	console.log(`# Totals: pass:${results.length - failed} fail:${failed} ` +
		'xfail:0 xpass:0 skip:0 error:0');
	process.exitCode = failed ? 1 : 0;
});
