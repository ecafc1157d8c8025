// flowagent review page (served by flowagentd; docs/SERVICE.md "The review page").
// Every string that comes from the API is untrusted: the page builds DOM nodes and sets
// textContent; the summary (sanitized HTML already) is tokenized by the page itself and rebuilt
// node by node through an allow-list of tags (links: http and https only). No HTML-string sink, no eval,
// no inline script (the Content-Security-Policy forbids it anyway).
'use strict';
(() => {
  const TOKEN_KEY = 'flowagent.token';
  const ID_RE = /^[0-9a-f]{8,64}$/;
  const MAX_STREAMS = 4;       // browsers allow ~6 HTTP/1.1 connections per host: keep some for the API
  const POLL_MS = 3000;
  const MAX_DIFF_ROWS = 4000;
  const MAX_STEPS = 400;
  const MAX_TEXT = 4000;

  const jobs = new Map();      // id -> {id, state, change_id, revision, submitted_unix_ms, progress, result}
  const streams = new Map();   // id -> {ctl, last}
  const views = new Map();     // id -> {li, button, badge, meta, bar, line}
  let selected = null;
  let pollTimer = null;

  const $ = (id) => document.getElementById(id);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  /// An element with attributes we name ourselves; children are nodes or text (never markup).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }
  const str = (v) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
  const clip = (s, n = MAX_TEXT) => { s = str(s); return s.length > n ? s.slice(0, n) + ' … (' + (s.length - n) + ' more characters)' : s; };

  // ---- token and API ----------------------------------------------------------------------------
  const token = () => sessionStorage.getItem(TOKEN_KEY) || '';

  /// The live status region; `kind` 'error' or 'prompt' marks messages the next good refresh clears.
  function say(text, kind) {
    const s = $('status');
    s.textContent = text;
    s.classList.toggle('error', kind === true || kind === 'error');
    s.dataset.kind = kind === true ? 'error' : kind || '';
  }

  async function api(path, accept) {
    const res = await fetch(path, {
      headers: { Authorization: 'Bearer ' + token(), Accept: accept || 'application/json' },
      cache: 'no-store', credentials: 'omit', redirect: 'error',
    });
    if (res.status === 401) throw new Error('The token was refused (401): enter a valid token.');
    if (res.status === 403) throw new Error('The token lacks the read scope (403).');
    return res;
  }

  async function apiJson(path) {
    const res = await api(path);
    if (!res.ok) throw new Error(path + ' answered ' + res.status);
    return res.json();
  }

  // ---- the jobs list ----------------------------------------------------------------------------
  function fraction(job) {
    if (job.state === 'done') return 1;
    const p = job.progress;
    if (!p || typeof p !== 'object') return null;
    const eta = Number(p.eta_ms), elapsed = Number(p.elapsed_ms);
    if (eta >= 0 && elapsed > 0) return Math.min(0.99, elapsed / (elapsed + eta));
    const i = Number(p.index), max = Number(p.max);
    if (max > 0 && i >= 0) return Math.min(0.99, i / max);
    return null;
  }

  function duration(ms) {
    ms = Math.max(0, Math.round(Number(ms) / 1000));
    if (ms < 60) return ms + ' s';
    const m = Math.floor(ms / 60), s = ms % 60;
    return m < 60 ? m + ' min ' + s + ' s' : Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
  }

  function progressLine(job) {
    if (job.state === 'done') {
      const r = job.result || {};
      return 'done: ' + str(r.status) + (r.reason ? ' (' + str(r.reason) + ')' : '');
    }
    if (job.state === 'queued') return 'queued';
    const p = job.progress;
    if (!p || typeof p !== 'object') return 'running';
    const parts = [];
    if (p.phase) parts.push(str(p.phase));
    if (Number(p.max) > 0) parts.push('tool call ' + Number(p.index) + ' of ' + Number(p.max));
    if (Number(p.tokens) > 0) parts.push(Number(p.tokens) + ' tokens');
    parts.push(Number(p.eta_ms) >= 0 ? 'ETA ' + duration(p.eta_ms) : 'ETA unknown');
    return parts.join(' · ');
  }

  function statusOf(job) {
    return job.state === 'done' ? str((job.result || {}).status) || 'done' : str(job.state) || 'queued';
  }

  function view(job) {
    let v = views.get(job.id);
    if (!v) {
      const button = el('button', { type: 'button', class: 'job', 'data-id': job.id });
      const title = el('span', { class: 'title' });
      const name = el('span', { class: 'name' });
      const badge = el('span', { class: 'badge' });
      title.append(name, badge);
      const meta = el('span', { class: 'meta' });
      const bar = el('progress', { max: '1', 'aria-label': 'progress' });
      const line = el('span', { class: 'meta progress-text' });
      button.append(title, meta, bar, line);
      button.addEventListener('click', () => { location.hash = '#/jobs/' + job.id; });
      const li = el('li', {}, button);
      v = { li, button, name, badge, meta, bar, line };
      views.set(job.id, v);
    }
    v.name.textContent = str(job.change_id) + ' · revision ' + Number(job.revision);
    const status = statusOf(job);
    v.badge.textContent = status;
    v.badge.className = 'badge ' + status.replace(/[^a-z_]/g, '');
    const when = Number(job.submitted_unix_ms) > 0 ? new Date(Number(job.submitted_unix_ms)).toLocaleString() : '';
    v.meta.textContent = job.id.slice(0, 12) + (when ? ' · ' + when : '');
    const f = fraction(job);
    if (f === null) v.bar.removeAttribute('value');
    else v.bar.value = f;
    v.line.textContent = progressLine(job);
    v.bar.setAttribute('aria-valuetext', v.line.textContent);
    v.button.setAttribute('aria-current', selected === job.id ? 'true' : 'false');
    return v;
  }

  function renderList() {
    const list = $('jobs');
    const ordered = [...jobs.values()].sort((a, b) => Number(b.submitted_unix_ms) - Number(a.submitted_unix_ms));
    ordered.forEach((job, i) => {
      const v = view(job);
      if (list.children[i] !== v.li) list.insertBefore(v.li, list.children[i] || null);
    });
    $('jobs-empty').hidden = ordered.length > 0;
  }

  async function refresh() {
    if (!token()) {
      say('Enter a bearer token with the read scope to see the jobs.', 'prompt');
      return;
    }
    try {
      const doc = await apiJson('/v1/repairs?limit=100');
      const list = Array.isArray(doc && doc.jobs) ? doc.jobs : [];
      for (const j of list) {
        if (!j || !ID_RE.test(str(j.id))) continue;   // never put an unchecked id into a URL
        const known = jobs.get(j.id);
        const job = known || { id: j.id };
        job.change_id = str(j.change_id);
        job.revision = Number(j.revision) || 0;
        job.submitted_unix_ms = Number(j.submitted_unix_ms) || 0;
        if (!known || known.state !== 'done') {
          job.state = str(j.state);
          job.result = j.result && typeof j.result === 'object' ? j.result : null;
          if (!streams.has(j.id) && j.progress && typeof j.progress === 'object') job.progress = j.progress;
        }
        jobs.set(j.id, job);
      }
      renderList();
      pumpStreams();
      // Not the live status region: a screen reader should not hear this every few seconds.
      $('jobs-meta').textContent = jobs.size + ' job' + (jobs.size === 1 ? '' : 's') + ', updated ' + new Date().toLocaleTimeString();
      if ($('status').dataset.kind) say('');
    } catch (e) {
      say(e.message, true);
    }
  }

  // ---- Server-Sent Events over fetch (an Authorization header; EventSource cannot send one) ------
  function pumpStreams() {
    const live = [...jobs.values()].filter((j) => j.state !== 'done' && !streams.has(j.id))
      .sort((a, b) => Number(b.submitted_unix_ms) - Number(a.submitted_unix_ms));
    for (const job of live) {
      if (streams.size >= MAX_STREAMS) break;
      follow(job.id);
    }
  }

  async function follow(id) {
    const s = { ctl: new AbortController(), last: '' };
    streams.set(id, s);
    try {
      for (let attempt = 0; attempt < 100 && !s.ctl.signal.aborted; attempt++) {
        const headers = { Authorization: 'Bearer ' + token(), Accept: 'text/event-stream' };
        if (s.last) headers['Last-Event-ID'] = s.last;   // resume after the last frame seen
        let res;
        try {
          res = await fetch('/v1/repairs/' + id + '/events', { headers, signal: s.ctl.signal, cache: 'no-store', credentials: 'omit' });
        } catch (e) {
          if (s.ctl.signal.aborted) return;
          await sleep(1000);
          continue;
        }
        if (!res.ok || !res.body) {
          if (res.status >= 400 && res.status < 500 && res.status !== 429) return;
          await sleep(1000);
          continue;
        }
        let done = false;
        try {
          done = await readEvents(res.body, (ev) => { if (ev.id) s.last = ev.id; onEvent(id, ev); });
        } catch (e) {
          if (s.ctl.signal.aborted) return;
        }
        if (done) return;
        await sleep(1000);
      }
    } finally {
      streams.delete(id);
      setTimeout(pumpStreams, 0);
    }
  }

  /// Reads an event stream; calls `on` per event; true once the `done` event arrived.
  async function readEvents(body, on) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      buf += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buf.search(/\r?\n\r?\n/)) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut).replace(/^\r?\n\r?\n/, '');
        const ev = { id: '', event: 'message', data: '' };
        const data = [];
        for (const line of block.split(/\r?\n/)) {
          if (!line || line[0] === ':') continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') ev.id = val;
          else if (field === 'event') ev.event = val;
          else if (field === 'data') data.push(val);
        }
        if (!data.length) continue;
        ev.data = data.join('\n');
        on(ev);
        if (ev.event === 'done') {
          reader.cancel().catch(() => {});
          return true;
        }
      }
    }
  }

  function onEvent(id, ev) {
    const job = jobs.get(id);
    if (!job) return;
    let data;
    try { data = JSON.parse(ev.data); } catch (e) { return; }
    if (!data || typeof data !== 'object') return;
    if (ev.event === 'state') job.state = str(data.state) || job.state;
    else if (ev.event === 'done') {
      job.state = 'done';
      job.result = { status: str(data.status), reason: str(data.reason) };
    } else if (ev.event !== 'log') job.progress = data;
    view(job);
    if (selected === id) {
      if (ev.event === 'done') showJob(id);
      else updateDetailProgress(job);
    }
  }

  // ---- one job ----------------------------------------------------------------------------------
  const ALLOWED = new Set(['P', 'BR', 'B', 'STRONG', 'I', 'EM', 'CODE', 'PRE', 'UL', 'OL', 'LI', 'A', 'SPAN',
                           'BLOCKQUOTE', 'SMALL', 'SUB', 'SUP', 'KBD', 'DEL', 'INS']);
  const DROPPED = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'IFRAME', 'OBJECT', 'EMBED', 'NOSCRIPT', 'TEXTAREA',
                           'TITLE', 'SVG', 'MATH', 'XMP', 'NOEMBED', 'NOFRAMES', 'SELECT', 'HEAD']);

  function safeHref(h) {
    if (!h) return null;
    try {
      const u = new URL(h, location.href);
      return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
    } catch (e) {
      return null;
    }
  }

  const VOID = new Set(['BR']);
  const NAMED = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

  function decodeEntities(text) {
    return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/g, (m, e) => {
      if (e[0] === '#') {
        const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : '\ufffd';
      }
      const v = NAMED[e.toLowerCase()];
      return v === undefined ? m : v;
    });
  }

  function hrefOf(attrs) {
    const m = /(?:^|\s)href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i.exec(attrs);
    return m ? safeHref(decodeEntities(m[1] ?? m[2] ?? m[3] ?? '')) : null;
  }

  /// The summary, re-sanitized: a small tokenizer (never the browser's HTML parser, so nothing in
  /// it is ever an element of any document) feeds DOM building through the allow-list. Allowed
  /// tags keep no attribute but a checked href; other tags vanish but keep their text; the content
  /// of script, style and the like is dropped whole.
  function summaryNode(html) {
    const out = el('div', { class: 'summary' });
    const stack = [{ tag: '', node: out }];
    let skipping = '';
    const re = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|[^<]+|</g;
    let m;
    while ((m = re.exec(str(html))) !== null) {
      const token = m[0];
      if (token.startsWith('<!--')) continue;
      if (m[2] === undefined) {                       // text (or a lone '<')
        if (!skipping) stack[stack.length - 1].node.append(document.createTextNode(decodeEntities(token)));
        continue;
      }
      const tag = m[2].toUpperCase();
      const closing = m[1] === '/';
      if (skipping) {
        if (closing && tag === skipping) skipping = '';
        continue;
      }
      if (DROPPED.has(tag)) {
        if (!closing && !/\/\s*$/.test(m[3])) skipping = tag;
        continue;
      }
      if (!ALLOWED.has(tag)) continue;
      if (closing) {
        const at = stack.map((s) => s.tag).lastIndexOf(tag);
        if (at > 0) stack.length = at;
        continue;
      }
      const e = document.createElement(tag.toLowerCase());
      if (tag === 'A') {
        const href = hrefOf(m[3]);
        if (href) {
          e.setAttribute('href', href);
          e.setAttribute('rel', 'noopener noreferrer nofollow');
          e.setAttribute('target', '_blank');
        }
      }
      stack[stack.length - 1].node.append(e);
      if (!VOID.has(tag) && stack.length < 32) stack.push({ tag, node: e });
    }
    return out;
  }

  function parseDiff(text) {
    const files = [];
    let f = null, oldNo = 0, newNo = 0;
    for (const line of str(text).split('\n')) {
      if (line.startsWith('diff --git ')) {
        f = { header: line.slice(11), oldName: '', newName: '', hunks: [], meta: [] };
        files.push(f);
        continue;
      }
      if (!f) { f = { header: '', oldName: '', newName: '', hunks: [], meta: [] }; files.push(f); }
      const hunk = f.hunks[f.hunks.length - 1];
      if (!hunk && line.startsWith('--- ')) { f.oldName = line.slice(4); continue; }
      if (!hunk && line.startsWith('+++ ')) { f.newName = line.slice(4); continue; }
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      if (m) {
        f.hunks.push({ head: line, lines: [] });
        oldNo = Number(m[1]);
        newNo = Number(m[2]);
        continue;
      }
      if (!hunk) { if (line) f.meta.push(line); continue; }
      const c = line[0];
      if (c === '-') hunk.lines.push({ t: 'del', o: oldNo++, s: line.slice(1) });
      else if (c === '+') hunk.lines.push({ t: 'add', n: newNo++, s: line.slice(1) });
      else if (c === ' ') hunk.lines.push({ t: 'ctx', o: oldNo++, n: newNo++, s: line.slice(1) });
    }
    return files;
  }

  function fileName(f) {
    const strip = (n) => n.replace(/^"?[ab]\//, '').replace(/"$/, '');
    if (f.newName && f.newName !== '/dev/null') return strip(f.newName);
    if (f.oldName && f.oldName !== '/dev/null') return strip(f.oldName);
    return f.header || '(unnamed)';
  }

  function diffNode(text) {
    const wrap = el('div', { class: 'diff' });
    let rows = 0;
    for (const f of parseDiff(text)) {
      const name = fileName(f);
      const box = el('section', { class: 'diff-file' }, el('h4', { class: 'mono' }, name));
      const table = el('table', { class: 'diff mono' },
        el('caption', { class: 'sr-only' }, 'Changes to ' + name + ': before on the left, after on the right'),
        el('colgroup', {}, el('col', { class: 'num' }), el('col'), el('col', { class: 'num' }), el('col')),
        el('thead', { class: 'sr-only' }, el('tr', {}, el('th', { scope: 'col' }, 'line before'), el('th', { scope: 'col' }, 'before'),
                                            el('th', { scope: 'col' }, 'line after'), el('th', { scope: 'col' }, 'after'))));
      const tbody = el('tbody');
      for (const m of f.meta) tbody.append(el('tr', { class: 'hunk' }, el('td', { colspan: '4' }, m)));
      for (const h of f.hunks) {
        tbody.append(el('tr', { class: 'hunk' }, el('td', { colspan: '4' }, h.head)));
        const dels = [], adds = [];
        const flush = () => {
          for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
            const d = dels[i], a = adds[i];
            tbody.append(el('tr', {},
              el('td', { class: 'num' + (d ? ' del' : '') }, d ? d.o : ''), el('td', { class: d ? 'del' : '' }, d ? d.s : ''),
              el('td', { class: 'num' + (a ? ' add' : '') }, a ? a.n : ''), el('td', { class: a ? 'add' : '' }, a ? a.s : '')));
            rows++;
          }
          dels.length = 0;
          adds.length = 0;
        };
        for (const l of h.lines) {
          if (rows > MAX_DIFF_ROWS) break;
          if (l.t === 'del') { if (adds.length) flush(); dels.push(l); }
          else if (l.t === 'add') adds.push(l);
          else {
            flush();
            tbody.append(el('tr', {}, el('td', { class: 'num' }, l.o), el('td', {}, l.s), el('td', { class: 'num' }, l.n), el('td', {}, l.s)));
            rows++;
          }
        }
        flush();
      }
      table.append(tbody);
      box.append(el('div', { class: 'diff-scroll' }, table));
      wrap.append(box);
      if (rows > MAX_DIFF_ROWS) { wrap.append(el('p', { class: 'muted' }, 'The diff is longer; download the patch to see all of it.')); break; }
    }
    return wrap;
  }

  const yesNo = (b) => el('span', { class: b ? 'pass' : 'fail' }, b ? 'yes' : 'no');

  function evidenceNode(ev) {
    ev = ev && typeof ev === 'object' ? ev : {};
    const box = el('div', { class: 'evidence' });
    box.append(el('dl', { class: 'facts' },
      el('dt', {}, 'evidence'), el('dd', {}, str(ev.kind) || 'not validated'),
      el('dt', {}, 'build'), el('dd', {}, yesNo(ev.build_ok)),
      el('dt', {}, 'failing tests pass'), el('dd', {}, yesNo(ev.failing_tests_pass)),
      el('dt', {}, 'wider tests pass'), el('dd', {}, yesNo(ev.wider_tests_pass)),
      el('dt', {}, 'fresh checkout'), el('dd', {}, yesNo(ev.fresh_checkout)),
      el('dt', {}, 'isolation'), el('dd', {}, str(ev.isolation) || (ev.sandboxed === false ? 'none' : '—'))));
    const tests = Array.isArray(ev.tests) ? ev.tests : [];
    if (tests.length) {
      const t = el('table', { class: 'evidence' }, el('caption', { class: 'sr-only' }, 'Requested failing tests'),
        el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'test'), el('th', { scope: 'col' }, 'outcome'), el('th', { scope: 'col' }, 'seen as'))));
      const body = el('tbody');
      for (const v of tests) {
        const outcome = str(v && v.outcome);
        body.append(el('tr', {}, el('td', { class: 'mono' }, str(v && v.id)),
          el('td', { class: outcome === 'passed' ? 'pass' : outcome === 'failed' || outcome === 'missing' ? 'fail' : '' }, outcome),
          el('td', { class: 'mono' }, (Array.isArray(v && v.seen_as) ? v.seen_as : []).map(str).join(', '))));
      }
      t.append(body);
      box.append(el('h4', {}, 'Tests'), t);
    }
    const runs = Array.isArray(ev.runs) ? ev.runs : [];
    if (runs.length) {
      const list = el('ol', { class: 'runs' });
      for (const r of runs) {
        const passed = Array.isArray(r && r.passed) ? r.passed.map(str) : [];
        const failed = Array.isArray(r && r.failed) ? r.failed.map(str) : [];
        const ok = Number(r && r.exit_code) === 0 && !(r && r.timed_out);
        const d = el('details', {},
          el('summary', {}, str(r && r.purpose) + ' run: ', el('span', { class: ok ? 'pass' : 'fail' }, ok ? 'exit 0' : r && r.timed_out ? 'timed out' : 'exit ' + Number(r && r.exit_code)),
             ' · ' + passed.length + ' passed, ' + failed.length + ' failed · ' + duration(r && r.duration_ms)),
          el('p', {}, 'command ', el('code', {}, clip(r && r.command, 600))),
          passed.length ? el('p', {}, 'passed: ', el('span', { class: 'mono' }, clip(passed.join(', ')))) : null,
          failed.length ? el('p', {}, 'failed: ', el('span', { class: 'mono fail' }, clip(failed.join(', ')))) : null,
          r && r.report_format ? el('p', { class: 'muted' }, 'results from ' + str(r.report_format)) : null);
        list.append(el('li', {}, d));
      }
      box.append(el('h4', {}, 'Validation runs'), list);
    }
    const pre = Array.isArray(ev.preexisting_failures) ? ev.preexisting_failures : [];
    if (pre.length) box.append(el('p', { class: 'muted' }, 'Failing before the fix too: ' + pre.map(str).join(', ')));
    return box;
  }

  function timelineNode(steps) {
    steps = Array.isArray(steps) ? steps : [];
    if (!steps.length) return el('p', { class: 'muted' }, 'No trajectory recorded.');
    const ol = el('ol', { class: 'timeline' });
    for (const s of steps.slice(0, MAX_STEPS)) {
      if (!s || typeof s !== 'object') continue;
      const kind = str(s.kind).replace(/[^a-z_]/g, '');
      const li = el('li', { class: kind + (s.ok === false ? ' failed' : '') },
        el('strong', {}, str(s.kind) + ': ' + str(s.name)),
        ' ', el('span', { class: 'muted' }, Number(s.ms) + ' ms' + (s.ok === false ? ' · failed' : '') + (Number(s.candidate) > 0 ? ' · candidate ' + Number(s.candidate) : '')));
      if (s.input || s.output) {
        li.append(el('details', {}, el('summary', {}, 'input and output'),
          s.input ? el('pre', {}, clip(s.input)) : null, s.output ? el('pre', {}, clip(s.output)) : null));
      }
      ol.append(li);
    }
    if (steps.length > MAX_STEPS) ol.append(el('li', { class: 'muted' }, (steps.length - MAX_STEPS) + ' more steps'));
    return ol;
  }

  function applyCommand(id) {
    return 'curl -fsS -H "Authorization: Bearer $FLOWAGENT_TOKEN" \'' + location.origin + '/v1/repairs/' + id +
      '/result\' | flowagent apply --repo . --result -';
  }

  async function downloadPatch(id, button) {
    button.disabled = true;
    try {
      const res = await api('/v1/repairs/' + id + '/patch', 'text/x-diff');
      if (!res.ok) throw new Error('the patch is not available (' + res.status + ')');
      const url = URL.createObjectURL(new Blob([await res.text()], { type: 'text/x-diff' }));
      const a = el('a', { href: url, download: 'flowagent-' + id + '.diff', hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      say('Patch downloaded: flowagent-' + id + '.diff');
    } catch (e) {
      say(e.message, true);
    } finally {
      button.disabled = false;
    }
  }

  async function copyCommand(input) {
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error('no clipboard');
      // A browser that asks the user for permission may never settle: fall back after 1.5 s.
      await Promise.race([navigator.clipboard.writeText(input.value),
                          new Promise((resolve, reject) => setTimeout(() => reject(new Error('clipboard timeout')), 1500))]);
      say('Copied the apply command (set FLOWAGENT_TOKEN first).');
    } catch (e) {
      input.focus();
      input.select();
      say('Select and copy the command shown (the clipboard is not available here).');
    }
  }

  function updateDetailProgress(job) {
    const p = $('detail-progress');
    const line = $('detail-progress-text');
    if (!p || !line) return;
    const f = fraction(job);
    if (f === null) p.removeAttribute('value');
    else p.value = f;
    line.textContent = progressLine(job);
  }

  async function showJob(id) {
    if (!ID_RE.test(id)) return;
    selected = id;
    for (const job of jobs.values()) view(job);
    const detail = $('detail');
    const body = $('detail-body');
    detail.hidden = false;
    let doc;
    try {
      doc = await apiJson('/v1/repairs/' + id);
    } catch (e) {
      say(e.message, true);
      return;
    }
    if (selected !== id) return;
    const job = jobs.get(id) || { id };
    job.change_id = str(doc.change_id);
    job.revision = Number(doc.revision) || 0;
    job.state = str(doc.state);
    if (doc.progress && typeof doc.progress === 'object' && !streams.has(id)) job.progress = doc.progress;
    if (doc.result && typeof doc.result === 'object') job.result = doc.result;
    jobs.set(id, job);
    const r = doc.result && typeof doc.result === 'object' ? doc.result : null;
    $('detail-heading').textContent = str(doc.change_id) + ' · revision ' + Number(doc.revision);
    const parts = [];
    parts.push(el('dl', { class: 'facts' },
      el('dt', {}, 'job'), el('dd', { class: 'mono' }, id),
      el('dt', {}, 'state'), el('dd', {}, job.state === 'done' && r ? str(r.status) + (r.reason ? ' (' + str(r.reason) + ')' : '') : job.state),
      r && r.message ? el('dt', {}, 'message') : null, r && r.message ? el('dd', {}, str(r.message)) : null,
      r && r.head_commit ? el('dt', {}, 'head') : null, r && r.head_commit ? el('dd', { class: 'mono' }, str(r.head_commit)) : null));
    if (!r) {
      const f = fraction(job);
      parts.push(el('progress', { id: 'detail-progress', max: '1', value: f === null ? null : String(f), 'aria-labelledby': 'detail-progress-text' }),
                 el('p', { id: 'detail-progress-text' }, progressLine(job)),
                 el('p', { class: 'muted' }, 'The result appears here when the job finishes.'));
    } else {
      if (r.status === 'fixed') {
        const dl = el('button', { type: 'button', id: 'download-patch' }, 'Download patch');
        dl.addEventListener('click', () => downloadPatch(id, dl));
        const cmd = el('input', { id: 'apply-command', class: 'command mono', type: 'text', readonly: true, 'aria-label': 'flowagent apply command' });
        cmd.value = applyCommand(id);
        const copy = el('button', { type: 'button', id: 'copy-apply', class: 'secondary' }, 'Copy apply command');
        copy.addEventListener('click', () => copyCommand(cmd));
        parts.push(el('div', { class: 'actions' }, dl, copy), cmd);
      }
      if (r.summary) parts.push(el('h3', {}, 'Summary'), summaryNode(r.summary));
      if (r.patch) parts.push(el('h3', {}, 'Diff'), diffNode(r.patch));
      parts.push(el('h3', {}, 'Validation evidence'), evidenceNode(r.evidence));
      const m = r.metrics && typeof r.metrics === 'object' ? r.metrics : {};
      parts.push(el('p', { class: 'muted' }, Number(m.tool_calls) + ' tool calls · ' + Number(m.model_calls) + ' model calls · ' +
        (Number(m.input_tokens) + Number(m.output_tokens)) + ' tokens · ' + duration(m.wall_ms)));
      parts.push(el('h3', {}, 'Trajectory'), timelineNode(r.trajectory));
    }
    body.replaceChildren(...parts.filter(Boolean));
    view(job);
  }

  function route(focus) {
    const m = /^#\/jobs\/([0-9a-f]{8,64})$/.exec(location.hash);
    if (m) {
      showJob(m[1]).then(() => { if (focus) $('detail-heading').focus(); });
    } else {
      selected = null;
      $('detail').hidden = true;
      for (const job of jobs.values()) view(job);
    }
  }

  function start() {
    const form = $('token-form');
    const input = $('token-input');
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const t = input.value.trim();
      if (t) sessionStorage.setItem(TOKEN_KEY, t);
      input.value = '';
      for (const s of streams.values()) s.ctl.abort();
      refresh().then(() => route(false));
    });
    $('token-forget').addEventListener('click', () => {
      sessionStorage.removeItem(TOKEN_KEY);
      for (const s of streams.values()) s.ctl.abort();
      jobs.clear();
      for (const v of views.values()) v.li.remove();
      views.clear();
      route(false);
      say('Token forgotten.');
    });
    window.addEventListener('hashchange', () => route(true));
    refresh().then(() => route(false));
    pollTimer = setInterval(refresh, POLL_MS);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
  void pollTimer;
})();
