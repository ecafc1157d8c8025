// Internal: the node preload (--require) that gives tape test files run in ONE node process one
// V8 coverage window each (the coverage localizer's passing neighbours, src/localize/coverage.cpp).
// Input: FLOWAGENT_TAPE_PLAN = [[test file, slot dir], ...] and NODE_V8_COVERAGE (on). It counts
// the top-level tests each plan file registers on tape's default harness while the file loads
// (tape runs them in that order after every file is loaded); when every file is loaded, the load
// window's coverage goes to every slot (each file's own process would have loaded that code too);
// when a file's last top-level test ends, v8.takeCoverage() writes the file's window (and resets
// the counters), the report moves to its slot cut to the project's own scripts (not node_modules:
// tape's own code would make every report ten times larger to read), and `rc` says whether one of its assertions failed
// (not todo, not skip). A file whose tests never end (the process died, the budget killed it) has
// no rc: the caller runs it again on its own. A file that throws while it loads (a bench script
// of another runner in the test folder) is a failed file, and the others still run. Without
// tape's harness nothing is written. The first FLOWAGENT_TAPE_REF files are the reference run:
// when they are done the driver writes the time one run took (FLOWAGENT_TAPE_REF_FILE) and ends
// the process when the budget is spent.
// [Threading] a constant.
#pragma once

namespace flowagent::detail {

inline constexpr const char* kTapeCoverageDriver = R"js('use strict';
(function () {
  const fs = require('fs'), path = require('path'), v8 = require('v8'), Module = require('module');
  const covDir = process.env.NODE_V8_COVERAGE;
  let plan;
  try { plan = JSON.parse(process.env.FLOWAGENT_TAPE_PLAN || '[]'); } catch (e) { return; }
  if (!covDir || !Array.isArray(plan) || plan.length === 0 || typeof v8.takeCoverage !== 'function') return;
  const real = (p) => { try { return fs.realpathSync(p); } catch (e) { return path.resolve(p); } };
  const files = plan.map(([f, slot]) => ({ file: real(path.resolve(f)), slot, start: -1, end: -1, failed: false }));
  const byFile = new Map(files.map((f) => [f.file, f]));
  let loaded = 0, tape = null, started = false;
  const root = real(process.cwd()) + path.sep;
  const ours = (url) => {  // the project's own scripts: what the localizer reads
    if (typeof url !== 'string' || !url.startsWith('file://')) return false;
    let p;
    try { p = real(require('url').fileURLToPath(url)); } catch (e) { return false; }
    return p.startsWith(root) && !p.includes(path.sep + 'node_modules' + path.sep);
  };
  const take = (dests) => {  // v8.takeCoverage(); what it wrote, cut to the project's scripts, to each of `dests`
    const before = new Set(fs.readdirSync(covDir));
    v8.takeCoverage();
    for (const name of fs.readdirSync(covDir)) {
      if (before.has(name)) continue;
      const src = path.join(covDir, name);
      let text = null;
      try {
        const doc = JSON.parse(fs.readFileSync(src, 'utf8'));
        doc.result = (doc.result || []).filter((s) => ours(s.url));
        text = JSON.stringify({ result: doc.result });
      } catch (e) {}
      if (text !== null)
        dests.forEach((d, i) => {
          try { fs.mkdirSync(d, { recursive: true }); fs.writeFileSync(path.join(d, 'w' + i + '-' + name), text); } catch (e) {}
        });
      try { fs.unlinkSync(src); } catch (e) {}
    }
  };
  const harness = () => (tape && typeof tape.getHarness === 'function' ? tape.getHarness() : null);
  const watch = (t, f) => {
    t.on('result', (r) => { if (r && r.ok === false && !r.todo && !r.skip) f.failed = true; });
    t.on('test', (st) => watch(st, f));
  };
  // The budget: the first FLOWAGENT_TAPE_REF files are the reference run (the failing files). When
  // they are done, the time since the process started is one run; the process may take FACTOR
  // times that (clamped to [MIN_MS, MAX_MS]) minus SPENT_MS (what the localization spent before
  // it), then it exits, keeping every file that finished. FACTOR 0: no deadline here.
  const num = (k) => { const v = Number(process.env[k]); return Number.isFinite(v) && v >= 0 ? v : 0; };
  const refCount = Math.min(files.length, num('FLOWAGENT_TAPE_REF'));
  let done = 0;
  const finishFile = (f) => {
    take([f.slot]);
    try { fs.writeFileSync(path.join(f.slot, 'rc'), f.failed ? '1\n' : '0\n'); } catch (e) {}
    if (++done === files.length && typeof v8.stopCoverage === 'function') v8.stopCoverage();  // no exit report
    if (done !== refCount) return;
    const refMs = Math.round(process.uptime() * 1000);
    try { if (process.env.FLOWAGENT_TAPE_REF_FILE) fs.writeFileSync(process.env.FLOWAGENT_TAPE_REF_FILE, refMs + '\n'); } catch (e) {}
    const factor = num('FLOWAGENT_TAPE_FACTOR');
    if (factor <= 0 || done === files.length) return;
    const total = Math.min(Math.max(factor * refMs, num('FLOWAGENT_TAPE_MIN_MS')), num('FLOWAGENT_TAPE_MAX_MS') || Infinity);
    setTimeout(() => process.exit(0), Math.max(0, total - num('FLOWAGENT_TAPE_SPENT_MS') - refMs)).unref();
  };
  const allLoaded = () => {
    const h = harness();
    const tests = h && Array.isArray(h._tests) ? h._tests : null;
    if (!tests) return;
    take(files.map((f) => f.slot));  // the load window: every file's process would have run it
    for (const f of files) {
      if (f.start < 0) continue;
      for (let i = f.start; i < f.end; ++i) watch(tests[i], f);
      if (f.end === f.start) { finishFile(f); continue; }  // no test: its load is all it ran
      tests[f.end - 1].once('end', () => setImmediate(() => finishFile(f)));
    }
    started = true;
  };
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    let resolved = null;
    try { resolved = Module._resolveFilename(request, parent, isMain); } catch (e) {}
    const f = resolved ? byFile.get(real(resolved)) : undefined;
    const h0 = f && harness();
    if (f) f.start = h0 && Array.isArray(h0._tests) ? h0._tests.length : 0;
    let out;
    try {
      out = load.apply(this, arguments);
    } catch (e) {  // a plan file that throws as it loads fails as a whole, as its own process would
      if (!f) throw e;
      f.failed = true;
    }
    if (!tape && resolved && /[\\/]tape[\\/]index\.js$/.test(resolved)) tape = out;
    if (f) {
      const h = harness();
      f.end = h && Array.isArray(h._tests) ? h._tests.length : f.start;
      if (++loaded === files.length && !started) allLoaded();
    }
    return out;
  };
})();
)js";

}  // namespace flowagent::detail
