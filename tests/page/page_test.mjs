// The review page against a real flowagentd (loopback, a temp repository root, a token file) in
// Debian's headless chromium driven by puppeteer-core (pinned in package-lock.json):
//   - the token goes in through the page's form (keyboard), the jobs list fills from GET /v1/repairs;
//   - a running job's progress bar advances from the Server-Sent Events stream (ETA shown);
//   - the finished job opens (keyboard: Tab to it, Enter), the summary, the side-by-side diff, the
//     validation evidence and the trajectory timeline are shown; "Download patch" saves the patch
//     /patch serves, "Copy apply command" puts a command naming /result (and no token) on the
//     clipboard;
//   - a hostile result (script tags, event handlers in file names, test ids and the summary,
//     `javascript:` links, an iframe srcdoc) is inert: every payload sets a window flag when it runs
//     and the flag stays unset, no dialog opens, no element with an on* attribute or a script/img/
//     iframe reaches the page, no Content-Security-Policy violation is reported;
//   - the page and its assets carry the Content-Security-Policy header;
//   - the same page against a Redis front end with a separate `flowagentd worker` process (when
//     redis-server is installed): progress from the worker's events, the finished job shown;
//   - screenshots at 1280 px and at a phone width go to the directory given (CI artifacts), and the
//     phone layout has no horizontal overflow.
// Usage: node page_test.mjs FLOWAGENTD SCREENSHOT_DIR     (exit 0 pass, 1 fail, 77 skip)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [flowagentd, shotDir] = process.argv.slice(2);
if (shotDir) fs.mkdirSync(shotDir, { recursive: true });
const CHROMIUM = process.env.FLOWAGENT_CHROMIUM || '/usr/bin/chromium';
if (!flowagentd || !shotDir) {
  console.error('usage: node page_test.mjs FLOWAGENTD SCREENSHOT_DIR');
  process.exit(2);
}
let puppeteer;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch (e) {
  console.log('SKIP: puppeteer-core is not installed (scripts/install-deps.sh runs npm ci in tests/page)');
  process.exit(77);
}
if (!fs.existsSync(CHROMIUM)) {
  console.log('SKIP: ' + CHROMIUM + ' is missing (Debian package chromium, scripts/install-deps.sh)');
  process.exit(77);
}

const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
};

// ---- a flowagentd on loopback --------------------------------------------------------------------
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flowagent-page-'));
fs.mkdirSync(path.join(tmp, 'repos', 'calc'), { recursive: true });
const TOKEN = 'page-test-token-' + Math.random().toString(36).slice(2);
const hash = createHash('sha256').update(TOKEN).digest('hex');
fs.writeFileSync(path.join(tmp, 'tokens'), `sha256:${hash} reviewer admin\n`);

const EVIL_FILE = 'src/<img src=x onerror="window.__pwned=1">.py';
const recorded = {
  schema: 'flowagent.repair_result/v1',
  status: 'fixed',
  reason: '',
  message: 'validated fix <b onmouseover="window.__pwned=20">bold?</b>',
  change_id: 'x',
  revision: 1,
  base_commit: 'a'.repeat(40),
  head_commit: 'b'.repeat(40),
  patch: [
    `diff --git a/${EVIL_FILE} b/${EVIL_FILE}`,
    'index 1111111..2222222 100644',
    `--- a/${EVIL_FILE}`,
    `+++ b/${EVIL_FILE}`,
    '@@ -1,4 +1,4 @@',
    ' def add(a, b):',
    '-    return a + b + 1  # <script>window.__pwned=2</script>',
    '+    return a + b  # <img src=x onerror="window.__pwned=3">',
    ' ',
    ' print("</td></tr></table><script>window.__pwned=4</script>")',
    '',
  ].join('\n'),
  summary: '<p>Root cause: the refactor added 1 to every sum. <script>window.__pwned=5</script>' +
    '<img src=x onerror="window.__pwned=6"><a href="javascript:window.__pwned=7">click me</a> ' +
    '<a href="https://example.com/doc" onclick="window.__pwned=8">docs</a>' +
    '<svg onload="window.__pwned=9"></svg><iframe srcdoc="<script>parent.__pwned=10</script>"></iframe>' +
    '<style>body{display:none}</style><b>Fix</b>: drop the + 1.</p>',
  evidence: {
    build_ok: true, failing_tests_pass: true, wider_tests_pass: true, loop_evidence_used: false, kind: 'structured',
    fresh_checkout: true, sandboxed: true, isolation: 'bubblewrap', preexisting_failures: [], replacements: [],
    tests: [{ id: 'test_calc.py::test_add[<script>window.__pwned=11</script>]', outcome: 'passed', seen_as: ['test_calc.py::test_add'] }],
    runs: [{ command: 'python3 -m pytest -q "<img src=x onerror=window.__pwned=12>"', purpose: 'failing', exit_code: 0, timed_out: false,
             duration_ms: 840, passed: ['test_calc.py::test_add'], failed: [], report_format: 'report:junit' },
           { command: 'python3 -m pytest -q', purpose: 'wider', exit_code: 0, timed_out: false, duration_ms: 1900,
             passed: ['test_calc.py::test_add', 'test_calc.py::test_sub'], failed: [], report_format: 'report:junit' }],
  },
  metrics: { tool_calls: 3, model_calls: 4, input_tokens: 5200, output_tokens: 410, cached_tokens: 0, cost_usd: 0.01, wall_ms: 9100, phase_ms: {} },
  trajectory: [
    { kind: 'phase', name: 'agent', input: '', output: '', ok: true, ms: 0 },
    { kind: 'tool', name: 'read_file', input: '{"path":"calc.py"}', output: '<script>window.__pwned=13</script>def add', ok: true, ms: 12 },
    { kind: 'tool', name: '<img src=x onerror="window.__pwned=14">', input: '', output: 'no such tool', ok: false, ms: 1 },
    { kind: 'tool', name: 'edit_file', input: '{"path":"calc.py"}', output: 'edited', ok: true, ms: 8 },
  ],
  hypotheses: [],
};
const resultFile = path.join(tmp, 'recorded.json');
fs.writeFileSync(resultFile, JSON.stringify(recorded));

const RUN_MS = 5000;  // long enough for a slow (ASan, loaded) start to still watch the job run
const daemon = spawn(flowagentd, ['--repos', path.join(tmp, 'repos'), '--tokens', path.join(tmp, 'tokens'), '--port', '0',
  '--workers', '2', '--runner', `result:${RUN_MS}:${resultFile}`], { stdio: ['ignore', 'pipe', 'inherit'] });
/// The port a flowagentd prints once it listens.
const listeningPort = (proc) => new Promise((resolve, reject) => {
  let out = '';
  const timer = setTimeout(() => reject(new Error('flowagentd did not start: ' + out)), 10000);
  proc.stdout.on('data', (d) => {
    out += d;
    const m = /listening on port (\d+)/.exec(out);
    if (m) { clearTimeout(timer); resolve(Number(m[1])); }
  });
  proc.on('exit', (code) => reject(new Error('flowagentd exited ' + code + ': ' + out)));
});
const extra = [];  // processes of the Redis scenario
const port = await listeningPort(daemon);
const origin = `http://127.0.0.1:${port}`;

async function submit(changeId, revision, at = origin) {
  const body = {
    schema: 'flowagent.repair_request/v1', repository: 'calc',
    change: { id: changeId, revision, base_commit: 'a'.repeat(40), head_commit: 'b'.repeat(40), description: 'Refactor add' },
    failure: { failing_tests: ['test_calc.py::test_add'] },
    commands: { test: 'python3 -m pytest -q {tests}' },
  };
  const res = await fetch(at + '/v1/repairs', { method: 'POST', headers: { Authorization: 'Bearer ' + TOKEN, 'Content-Type': 'application/json' },
                                                    body: JSON.stringify(body) });
  const doc = await res.json();
  if (res.status !== 202) throw new Error('submit answered ' + res.status + ' ' + JSON.stringify(doc));
  return doc.id;
}

let browser;
const started = Date.now();
try {
  // Headers of the page and its assets.
  for (const p of ['/', '/assets/app.js', '/assets/app.css']) {
    const res = await fetch(origin + p);
    const csp = res.headers.get('content-security-policy') || '';
    check(res.status === 200 && csp.includes("script-src 'self'") && !csp.includes('unsafe-inline') && csp.includes("default-src 'none'"),
          `GET ${p} is served with a Content-Security-Policy (script-src 'self', no unsafe-inline)`);
    check(res.headers.get('x-content-type-options') === 'nosniff', `GET ${p} sends X-Content-Type-Options: nosniff`);
  }
  const html = await (await fetch(origin + '/')).text();
  check(!/<script>|<script [^>]*>[^<]/.test(html) && !/ on[a-z]+=/.test(html), 'the page has no inline script or inline handler');

  // Chromium refuses its sandbox as root in a container (no user namespaces for it): --no-sandbox.
  // The page is what is tested, not chromium's process isolation; nothing but the local service is loaded.
  browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
  await browser.defaultBrowserContext().overridePermissions(origin, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const dialogs = [];
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.evaluateOnNewDocument(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
  });

  const first = await submit('<img src=x onerror="window.__pwned=30">', 1);
  await page.goto(origin + '/', { waitUntil: 'domcontentloaded' });
  check((await page.$eval('#status', (e) => e.textContent)).includes('token'), 'without a token the page asks for one');
  // The token through the form, by keyboard.
  await page.focus('#token-input');
  await page.keyboard.type(TOKEN);
  await page.keyboard.press('Enter');
  check(await page.evaluate(() => sessionStorage.getItem('flowagent.token')) !== null, 'the token is kept in sessionStorage');
  await page.waitForSelector(`button.job[data-id="${first}"]`, { timeout: 5000 });
  check(true, 'the jobs list shows the submitted job');
  await page.waitForFunction(() => !/token/i.test(document.getElementById('status').textContent), { timeout: 5000 });
  check(true, 'with a valid token the page stops asking for one');

  // Progress advances (the SSE stream drives the bar) and an ETA is shown.
  const seen = new Set();
  let etaText = '';
  for (let i = 0; i < (RUN_MS + 3000) / 100; i++) {
    const s = await page.$eval(`button.job[data-id="${first}"]`, (b) => ({
      v: b.querySelector('progress').hasAttribute('value') ? b.querySelector('progress').value : null,
      text: b.querySelector('.progress-text').textContent,
    }));
    if (s.v !== null && s.v > 0 && s.v < 1) seen.add(Math.round(s.v * 100));
    if (/ETA \d/.test(s.text)) etaText = s.text;
    if (s.text.startsWith('done')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  check(seen.size >= 2, `the progress bar advanced while the job ran (values seen: ${[...seen].join(', ')})`);
  check(/tool call \d+ of 10/.test(etaText) && /ETA \d/.test(etaText), `the progress line names the tool call and the ETA ("${etaText}")`);
  await page.waitForFunction((id) => document.querySelector(`button.job[data-id="${id}"] .progress-text`).textContent.startsWith('done: fixed'),
                             { timeout: RUN_MS + 5000 }, first);
  check(true, 'the job ends "done: fixed" in the list');
  await page.screenshot({ path: path.join(shotDir, 'jobs-1280.png') });

  // Open it by keyboard: Tab until the job's button has focus, then Enter.
  let focused = false;
  for (let i = 0; i < 20 && !focused; i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate((id) => document.activeElement && document.activeElement.dataset.id === id, first);
  }
  check(focused, 'the job button is reachable with Tab');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#detail-body .diff', { timeout: 5000 });
  check(await page.evaluate(() => document.activeElement && document.activeElement.id === 'detail-heading'), 'Enter opens the job and moves focus to it');
  const detail = await page.evaluate(() => {
    const b = document.getElementById('detail-body');
    return {
      heading: document.getElementById('detail-heading').textContent,
      summary: (b.querySelector('.summary') || {}).textContent || '',
      links: [...b.querySelectorAll('.summary a')].map((a) => ({ text: a.textContent, href: a.getAttribute('href') })),
      file: (b.querySelector('.diff-file h4') || {}).textContent || '',
      dels: [...b.querySelectorAll('table.diff td.del:not(.num)')].map((t) => t.textContent),
      adds: [...b.querySelectorAll('table.diff td.add:not(.num)')].map((t) => t.textContent),
      rows: b.querySelectorAll('table.diff tbody tr').length,
      evidence: (b.querySelector('.evidence') || {}).textContent || '',
      steps: b.querySelectorAll('ol.timeline li').length,
      command: (document.getElementById('apply-command') || {}).value || '',
      download: !!document.getElementById('download-patch'),
    };
  });
  check(detail.heading.includes('<img src=x onerror="window.__pwned=30">'), 'a hostile change id is shown as text');
  check(detail.summary.includes('Root cause: the refactor added 1 to every sum.') && detail.summary.includes('Fix: drop the + 1.'),
        'the summary is shown');
  check(detail.links.length === 2 && detail.links[0].href === null && detail.links[1].href === 'https://example.com/doc',
        'summary links: javascript: dropped, https kept ' + JSON.stringify(detail.links));
  check(detail.file === EVIL_FILE, 'a file name with an event handler is shown as text');
  check(detail.dels.length === 1 && detail.dels[0].includes('return a + b + 1  # <script>window.__pwned=2</script>') &&
        detail.adds.length === 1 && detail.adds[0].includes('return a + b  # <img'), 'the diff is side by side: the removed line left, the added line right');
  check(detail.rows >= 4, `the diff has its context rows (${detail.rows})`);
  check(/failing tests pass\s*yes/.test(detail.evidence) && detail.evidence.includes('test_calc.py::test_add') &&
        detail.evidence.includes('2 passed, 0 failed'), 'the validation evidence lists the runs and the tests that passed');
  check(detail.steps === 4, `the trajectory timeline has its 4 steps (${detail.steps})`);
  check(detail.download && detail.command.includes(`/v1/repairs/${first}/result`) && detail.command.includes('flowagent apply --repo . --result -') &&
        !detail.command.includes(TOKEN), 'download and copy-apply controls; the command names no token');
  // Open every <details> so hidden payloads are in the rendered DOM too.
  await page.$$eval('#detail-body details', (ds) => ds.forEach((d) => { d.open = true; }));
  await new Promise((r) => setTimeout(r, 300));
  await page.screenshot({ path: path.join(shotDir, 'job-1280.png'), fullPage: true });

  // Nothing hostile ran or reached the DOM (checked at both widths: the phone viewport reloads the page).
  const checkInert = async (when) => {
    const inert = await page.evaluate(() => ({
      pwned: window.__pwned, parentPwned: window.parent.__pwned,
      elements: document.querySelectorAll('#detail-body script, #detail-body img, #detail-body iframe, #detail-body svg, #detail-body style, #jobs img, #jobs script').length,
      handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length,
      jsLinks: [...document.querySelectorAll('[href]')].filter((e) => /^\s*javascript:/i.test(e.getAttribute('href'))).length,
      csp: window.__cspViolations,
      shown: !!document.querySelector('#detail-body .summary') && !!document.querySelector('#detail-body table.diff'),
    }));
    check(inert.shown, `${when}: the job's summary and diff are on the page`);
    check(inert.pwned === undefined && inert.parentPwned === undefined, `${when}: no hostile payload ran (window.__pwned unset)`);
    check(inert.elements === 0, `${when}: no script, img, iframe, svg or style element from the API reached the page`);
    check(inert.handlers === 0, `${when}: no element carries an on* attribute`);
    check(inert.jsLinks === 0, `${when}: no javascript: link`);
    check(inert.csp.length === 0, `${when}: no Content-Security-Policy violation ` + JSON.stringify(inert.csp));
  };
  await checkInert('1280 px');

  // The apply command's URL serves the result document.
  const res = await fetch(origin + `/v1/repairs/${first}/result`, { headers: { Authorization: 'Bearer ' + TOKEN } });
  const doc = await res.json();
  check(res.status === 200 && doc.schema === 'flowagent.repair_result/v1' && doc.status === 'fixed', 'GET /v1/repairs/{id}/result serves the result');

  // Download button: the patch arrives as a file, byte for byte what /patch serves.
  const downloads = path.join(tmp, 'downloads');
  fs.mkdirSync(downloads);
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
  await page.click('#download-patch');
  const want = await (await fetch(origin + `/v1/repairs/${first}/patch`, { headers: { Authorization: 'Bearer ' + TOKEN } })).text();
  const file = path.join(downloads, `flowagent-${first}.diff`);
  for (let i = 0; i < 50 && !(fs.existsSync(file) && fs.statSync(file).size > 0); i++) await new Promise((r) => setTimeout(r, 100));
  check(fs.existsSync(file) && fs.readFileSync(file, 'utf8') === want && want.includes('+    return a + b  #'),
        'the download button saves the patch (' + (fs.existsSync(file) ? fs.statSync(file).size : 0) + ' bytes)');

  // Copy button (keyboard): the command reaches the clipboard, and the page says so.
  await page.focus('#copy-apply');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /copied/i.test(document.getElementById('status').textContent), { timeout: 4000 });
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  check(clip === detail.command, 'the copy button puts the apply command on the clipboard');

  // A phone.
  await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await new Promise((r) => setTimeout(r, 300));
  await page.waitForSelector('#detail-body .diff', { timeout: 5000 });  // the bookmarkable #/jobs/<id> reopened it
  await page.$$eval('#detail-body details', (ds) => ds.forEach((d) => { d.open = true; }));
  const overflowAfter = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflowAfter <= 1, `no horizontal overflow at 390 px with every section open (${overflowAfter} px)`);
  await page.screenshot({ path: path.join(shotDir, 'job-phone.png'), fullPage: true });
  await checkInert('390 px');

  // The same page against a Redis front end and a separate worker process (event ids are stream ids).
  if (fs.existsSync('/usr/bin/redis-server')) {
    const net = await import('node:net');
    const freePort = () => new Promise((resolve) => { const srv = net.createServer(); srv.listen(0, '127.0.0.1', () => { const p = srv.address().port; srv.close(() => resolve(p)); }); });
    const redisPort = await freePort();
    const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    extra.push(redis);
    for (let i = 0; i < 100; i++) {
      const ok = await new Promise((resolve) => { const c = net.connect(redisPort, '127.0.0.1', () => { c.end(); resolve(true); }); c.on('error', () => resolve(false)); });
      if (ok) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const queue = `redis://127.0.0.1:${redisPort}/0`;
    const front = spawn(flowagentd, ['--repos', path.join(tmp, 'repos'), '--tokens', path.join(tmp, 'tokens'), '--port', '0', '--queue', queue],
                        { stdio: ['ignore', 'pipe', 'inherit'] });
    extra.push(front);
    const frontPort = await listeningPort(front);
    extra.push(spawn(flowagentd, ['worker', '--queue', queue, '--workers', '1', '--runner', `result:2000:${resultFile}`], { stdio: 'ignore' }));
    const redisOrigin = `http://127.0.0.1:${frontPort}`;
    const rid = await submit('redis-change', 1, redisOrigin);
    const p2 = await browser.newPage();
    await p2.evaluateOnNewDocument(() => { window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective)); });
    await p2.goto(redisOrigin + '/', { waitUntil: 'domcontentloaded' });
    await p2.type('#token-input', TOKEN);
    await p2.keyboard.press('Enter');
    await p2.waitForSelector(`button.job[data-id="${rid}"]`, { timeout: 5000 });
    let partial = false;
    for (let i = 0; i < 60; i++) {
      const v = await p2.$eval(`button.job[data-id="${rid}"] progress`, (b) => (b.hasAttribute('value') ? b.value : null));
      if (v !== null && v > 0 && v < 1) partial = true;
      if (v === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    check(partial, 'Redis mode: the progress bar moves from the worker\'s events (stream ids as event ids)');
    await p2.waitForFunction((id) => document.querySelector(`button.job[data-id="${id}"] .progress-text`).textContent.startsWith('done: fixed'),
                             { timeout: 8000 }, rid);
    await p2.click(`button.job[data-id="${rid}"]`);
    await p2.waitForSelector('#detail-body .summary', { timeout: 5000 });
    const r2 = await p2.evaluate(() => ({ summary: document.querySelector('#detail-body .summary').textContent,
                                          rows: document.querySelectorAll('#detail-body table.diff tbody tr').length,
                                          pwned: window.__pwned, csp: window.__cspViolations.length }));
    check(r2.summary.includes('Root cause') && r2.rows >= 4 && r2.pwned === undefined && r2.csp === 0,
          'Redis mode: the finished job shows its summary and diff, inert ' + JSON.stringify(r2));
    await p2.screenshot({ path: path.join(shotDir, 'redis-job-1280.png') });
  }

  check(dialogs.length === 0, 'no dialog opened');
  check(pageErrors.length === 0, 'no script error on the page: ' + JSON.stringify(pageErrors));
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.log('FAIL ' + String(e && e.stack || e));
} finally {
  if (browser) await browser.close().catch(() => {});
  for (const p of extra.reverse()) p.kill('SIGKILL');
  daemon.kill('SIGTERM');
  await new Promise((r) => { daemon.once('exit', r); setTimeout(r, 3000); });
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`${failures.length ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${shotDir}`);
process.exit(failures.length ? 1 : 0);
