// The zkpipe panel: polls panel/data once a second and renders it. Every string from the data
// goes into the page through textContent or an attribute, never as markup. Charts are Chart.js
// (served beside this file as chart.js) with animations off, created once and updated in place.
// After each successful render body[data-updated] holds the data's now_s (tests wait on it).
'use strict';

(() => {
  const kPollMs = 1000;
  const kFetchTimeoutMs = 2500;
  const kPriorities = ['critical', 'high', 'normal', 'low'];
  const kFinished = new Set(['done', 'failed', 'cancelled']);
  const kMaxWaterfallRows = 120;
  // Span colors by name, in pipeline order; names not listed get a color from kExtraColors by a
  // hash of the name, so a span keeps its color across renders and page loads.
  const kSpanColors = {
    queue_wait: '#a3adba',
    params: '#6366f1',
    synthesis: '#3b82f6',
    prove_start: '#f59e0b',
    prove_finish: '#10b981',
    verify: '#8b5cf6',
    assemble: '#14b8a6',
    trim: '#ec4899',
  };
  const kExtraColors = ['#ef4444', '#84cc16', '#06b6d4', '#d946ef', '#f97316', '#0ea5e9',
                        '#a16207', '#4d7c0f'];
  const kBusy = '#2563eb';
  const kIdle = '#e5e9f0';
  const kGrid = '#eef1f5';

  const $ = (id) => document.getElementById(id);
  const haveChart = typeof window.Chart === 'function';
  const charts = {};

  // ---- formatting -------------------------------------------------------------------------

  function fmtBytes(n) {
    if (typeof n !== 'number' || !isFinite(n)) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let v = n, u = 0;
    while (Math.abs(v) >= 1024 && u < units.length - 1) { v /= 1024; u++; }
    return (u === 0 ? String(v) : v.toFixed(v < 10 ? 2 : 1)) + ' ' + units[u];
  }

  function fmtSeconds(s) {
    if (typeof s !== 'number' || !isFinite(s)) return '–';
    if (s < 1) return Math.round(s * 1000) + ' ms';
    if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + ' s';
    const m = Math.floor(s / 60);
    if (m < 60) return m + ' m ' + String(Math.floor(s % 60)).padStart(2, '0') + ' s';
    const h = Math.floor(m / 60);
    if (h < 48) return h + ' h ' + String(m % 60).padStart(2, '0') + ' m';
    return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
  }

  const fmtAgo = (now, t) => (typeof t === 'number' ? fmtSeconds(Math.max(0, now - t)) + ' ago' : '–');
  const fmtInt = (n) => (typeof n === 'number' && isFinite(n) ? String(n) : '–');
  const fmtPct = (p) => (typeof p === 'number' && isFinite(p) ? p.toFixed(1) + '%' : '–');

  // Time axes are in seconds relative to a reference (now, or a job's submission): a tick is
  // '-4m30s', '-12s', '+250ms' or `zero`; steps are round numbers so ticks line up with them.
  function fmtTick(v, zero) {
    const a = Math.abs(v), sign = v < 0 ? '-' : '+';
    if (a < 1e-9) return zero;
    if (a < 1) return sign + Math.round(a * 1000) + 'ms';
    if (a < 60) return sign + Number(a.toFixed(a < 10 ? 1 : 0)) + 's';
    const m = Math.floor(a / 60), sec = Math.round(a % 60);
    return sign + m + 'm' + (sec ? String(sec).padStart(2, '0') + 's' : '');
  }
  const kSteps = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60,
                  120, 300, 600, 1800, 3600];
  function setTimeAxis(axis, min, max, zero) {
    const range = Math.max(max - min, 1e-3);
    const step = kSteps.find((st) => range / st <= 8) || 3600 * Math.ceil(range / 28800);
    axis.min = Math.floor(min / step + 1e-9) * step;  // whole steps, so no tick crowds a bound
    axis.max = Math.ceil(max / step - 1e-9) * step;
    axis.ticks.stepSize = step;
    axis.ticks.callback = (v) => fmtTick(v, zero);
  }

  function hashColor(name) {
    let h = 0;
    for (const c of name) h = (h * 31 + c.codePointAt(0)) >>> 0;
    return kExtraColors[h % kExtraColors.length];
  }
  const spanColor = (name) => kSpanColors[name] || hashColor(name);

  // ---- DOM helpers (text only) --------------------------------------------------------------

  // el('td', {class: 'x', 'data-job': 7}, 'text', child...): attributes set with setAttribute,
  // strings added as text nodes.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) e.setAttribute(k, String(v));
    }
    for (const c of children) {
      e.append(c instanceof Node ? c : document.createTextNode(c === undefined || c === null ? '' : String(c)));
    }
    return e;
  }
  const setText = (id, text) => { const e = $(id); if (e) e.textContent = text; };
  const badge = (state, text) => el('span', {class: 'badge', 'data-state': state}, text ?? state);
  const emptyRow = (cols, text) => el('tr', {class: 'empty'}, el('td', {colspan: cols}, text));

  function setBadge(id, state, text) {
    const e = $(id);
    e.dataset.state = state;
    e.textContent = text;
  }

  // ---- charts ---------------------------------------------------------------------------

  function makeCharts() {
    Chart.defaults.animation = false;
    Chart.defaults.responsive = true;
    Chart.defaults.maintainAspectRatio = false;
    Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    Chart.defaults.font.size = 11;
    Chart.defaults.color = '#52606d';

    const timeAxis = {type: 'linear', grid: {color: kGrid}, ticks: {maxTicksLimit: 8}};
    const rowAxis = {type: 'category', grid: {display: false}, ticks: {autoSkip: false}};

    charts.devices = new Chart($('device-timeline'), {
      type: 'bar',
      data: {labels: [], datasets: [
        {label: 'busy', data: [], backgroundColor: kBusy, grouped: false, barPercentage: 0.7,
         categoryPercentage: 1},
        {label: 'idle', data: [], backgroundColor: kIdle, grouped: false, barPercentage: 0.7,
         categoryPercentage: 1},
      ]},
      options: {
        indexAxis: 'y',
        scales: {x: {...timeAxis}, y: {...rowAxis}},
        plugins: {legend: {display: false},
                  tooltip: {filter: (item) => item.datasetIndex === 0,
                            callbacks: {label: (c) => busyLabel(c.raw)}}},
      },
    });

    charts.queues = new Chart($('queue-chart'), {
      type: 'bar',
      data: {labels: kPriorities, datasets: [
        {label: 'jobs', data: [], backgroundColor: '#3b82f6'},
        {label: 'partitions queued', data: [], backgroundColor: '#93c5fd'},
      ]},
      options: {
        scales: {x: {grid: {display: false}},
                 y: {beginAtZero: true, grid: {color: kGrid}, ticks: {precision: 0},
                     suggestedMax: 4}},
        plugins: {legend: {position: 'bottom', labels: {boxWidth: 12}}},
      },
    });

    charts.memory = new Chart($('memory-chart'), {
      type: 'bar',
      data: {labels: ['budget'], datasets: [
        {label: 'hot params', data: [0], backgroundColor: '#8b5cf6'},
        {label: 'working sets', data: [0], backgroundColor: '#3b82f6'},
        {label: 'free', data: [0], backgroundColor: kIdle},
      ]},
      options: {
        indexAxis: 'y',
        scales: {x: {stacked: true, min: 0, grid: {color: kGrid}, ticks: {callback: fmtBytes, maxTicksLimit: 6}},
                 y: {stacked: true, display: false}},
        plugins: {legend: {position: 'bottom', labels: {boxWidth: 12}},
                  tooltip: {callbacks: {label: (c) => c.dataset.label + ': ' + fmtBytes(c.raw)}}},
      },
    });

    charts.throughput = new Chart($('throughput-chart'), {
      type: 'line',
      data: {datasets: [{label: 'proofs / min', data: [], borderColor: '#10b981',
                         backgroundColor: 'rgba(16, 185, 129, 0.12)', fill: true, tension: 0.25,
                         pointRadius: 2, borderWidth: 2}]},
      options: {
        scales: {x: {...timeAxis}, y: {beginAtZero: true, grid: {color: kGrid}, suggestedMax: 1}},
        plugins: {legend: {display: false}},
      },
    });

    charts.waterfall = new Chart($('waterfall'), {
      type: 'bar',
      data: {labels: [], datasets: []},
      options: {
        indexAxis: 'y',
        scales: {x: {...timeAxis}, y: {...rowAxis, ticks: {autoSkip: false, font: {size: 10}}}},
        plugins: {legend: {display: false},
                  tooltip: {callbacks: {label: (c) => spanLabel(c.dataset.label, c.raw)}}},
      },
    });
  }

  const busyLabel = (p) => 'busy ' + fmtSeconds(p.x[1] - p.x[0]);
  const spanLabel = (name, p) => name + ': ' + fmtSeconds(p.x[1] - p.x[0]) + (p.open ? ' (running)' : '');

  // A canvas box's height for `rows` rows of a horizontal bar chart.
  function fitRows(boxId, rows, rowPx, extraPx) {
    $(boxId).style.height = Math.max(rows, 1) * rowPx + extraPx + 'px';
  }

  // ---- cards ------------------------------------------------------------------------------

  function renderHeader(d) {
    setText('version', d.version || '');
    setText('uptime', fmtSeconds(d.uptime_s));
    setBadge('accepting', d.accepting ? 'accepting' : 'draining', d.accepting ? 'accepting' : 'draining');
    setBadge('ready', d.ready ? 'ready' : 'starting', d.ready ? 'ready' : 'not ready');
    document.title = 'zkpipe panel' + (d.version ? ' – ' + d.version : '');
  }

  function renderCounters(c) {
    for (const k of ['jobs_done', 'jobs_failed', 'jobs_cancelled', 'partitions_proved']) {
      setText('counter-' + k, fmtInt(c?.[k]));
    }
  }

  function renderDevices(d) {
    const now = d.now_s, from = now - d.window_s;
    const devices = d.devices || [];
    setText('window-label', 'last ' + fmtSeconds(d.window_s));
    $('device-list').replaceChildren(...devices.map((dev) =>
      el('li', {'data-device': dev.name, 'data-busy-pct': dev.busy_pct},
         el('span', {class: 'device-name'}, dev.name),
         el('span', {class: 'meter'}, el('span', {class: 'meter-fill',
            style: 'width: ' + Math.min(100, Math.max(0, Number(dev.busy_pct) || 0)) + '%'})),
         el('span', {class: 'busy-pct'}, fmtPct(dev.busy_pct)),
         el('span', {class: 'muted'}, 'busy'))));
    if (!haveChart) return;
    const busy = [];
    for (const dev of devices) {
      for (const [s, e] of dev.intervals || []) {
        const a = Math.max(s, from), b = Math.min(e ?? now, now);
        if (b > a) busy.push({y: dev.name, x: [a - now, b - now]});
      }
    }
    const c = charts.devices;
    c.data.labels = devices.map((dev) => dev.name);
    c.data.datasets[0].data = busy;
    // Idle from the daemon's start (clock 0) or the window's start, whichever is later.
    const since = Math.max(from, 0) - now;
    c.data.datasets[1].data = devices.map((dev) => ({y: dev.name, x: [since, 0]}));
    setTimeAxis(c.options.scales.x, -d.window_s, 0, 'now');
    fitRows('device-timeline-box', devices.length, 30, 40);
    c.update('none');
  }

  function renderQueues(q) {
    for (const p of kPriorities) {
      setText('queue-' + p + '-jobs', fmtInt(q?.[p]?.jobs));
      setText('queue-' + p + '-partitions', fmtInt(q?.[p]?.partitions_queued));
    }
    if (!haveChart) return;
    const c = charts.queues;
    c.data.datasets[0].data = kPriorities.map((p) => q?.[p]?.jobs ?? 0);
    c.data.datasets[1].data = kPriorities.map((p) => q?.[p]?.partitions_queued ?? 0);
    c.update('none');
  }

  function renderMemory(b) {
    const total = b?.total_bytes ?? 0, used = b?.reserved_bytes ?? 0;
    // Resident params are reserved in the budget too: they are part of `used`.
    const hot = Math.min(b?.hot_params_bytes ?? 0, used);
    setText('memory-used', fmtBytes(used));
    const pct = total > 0 ? 100 * used / total : null;
    setText('memory-used-pct', pct === null ? '' : '(' + (pct > 0 && pct < 0.1 ? '<0.1%' : fmtPct(pct)) + ')');
    setText('memory-hot', fmtBytes(b?.hot_params_bytes));
    setText('memory-peak', fmtBytes(b?.peak_bytes));
    setText('memory-total', fmtBytes(b?.total_bytes));
    if (!haveChart) return;
    const c = charts.memory;
    c.data.datasets[0].data = [hot];
    c.data.datasets[1].data = [used - hot];
    c.data.datasets[2].data = [Math.max(0, total - used)];
    c.options.scales.x.max = Math.max(total, used) || 1;
    c.update('none');
  }

  function renderThroughput(d) {
    if (!haveChart) return;
    const now = d.now_s;
    const c = charts.throughput;
    c.data.datasets[0].data = (d.throughput || []).map((p) => ({x: p.t_s - now, y: p.proofs_per_min}));
    setTimeAxis(c.options.scales.x, -d.window_s, 0, 'now');
    c.update('none');
  }

  // Span names in a stable order: the known pipeline steps first, then the rest by name.
  function spanOrder(names) {
    const known = Object.keys(kSpanColors);
    return [...names].sort((a, b) => {
      const ia = known.indexOf(a), ib = known.indexOf(b);
      if (ia >= 0 || ib >= 0) return (ia < 0 ? known.length : ia) - (ib < 0 ? known.length : ib);
      return a < b ? -1 : a > b ? 1 : 0;
    });
  }

  // The waterfall's time axis: 'clock' (the daemon clock, jobs side by side) or 'submit' (each
  // row from its job's submission, so short jobs compare at one scale).
  let waterfallMode = 'clock';
  let lastData = null;

  function renderWaterfall(d) {
    const now = d.now_s;
    const rows = [];  // {label, origin, spans}
    for (const job of d.jobs || []) {
      const head = '#' + job.job + ' ' + job.proof_type;
      const origin = waterfallMode === 'submit' ? job.submitted_s : now;
      const parts = job.partitions || [];
      if (parts.length === 0) rows.push({label: head + ' (' + job.state + ')', origin, spans: []});
      for (const p of parts) rows.push({label: head + ' p' + p.partition, origin, spans: p.spans || []});
    }
    const shown = rows.slice(0, kMaxWaterfallRows);
    setText('waterfall-note', rows.length > shown.length
      ? (rows.length - shown.length) + ' older rows not shown' : (rows.length ? '' : 'no jobs yet'));

    const byName = new Map();
    let lo = Infinity, hi = -Infinity;
    for (const r of shown) {
      for (const s of r.spans) {
        const open = s.end_s === null || s.end_s === undefined;
        const a = s.start_s - r.origin, b = Math.max(open ? now : s.end_s, s.start_s) - r.origin;
        if (!byName.has(s.name)) byName.set(s.name, []);
        byName.get(s.name).push({y: r.label, x: [a, b], open});
        lo = Math.min(lo, a);
        hi = Math.max(hi, b);
      }
    }
    const names = spanOrder(byName.keys());
    $('waterfall-legend').replaceChildren(...names.map((n) =>
      el('li', {'data-span': n}, el('span', {class: 'swatch', style: 'background: ' + spanColor(n)}), n)));
    if (!haveChart) return;
    const c = charts.waterfall;
    c.data.labels = shown.map((r) => r.label);
    c.data.datasets = names.map((n) => ({
      label: n, data: byName.get(n), backgroundColor: spanColor(n), grouped: false,
      barPercentage: 0.8, categoryPercentage: 1, minBarLength: 2,
    }));
    if (waterfallMode === 'submit') {
      setTimeAxis(c.options.scales.x, 0, isFinite(hi) && hi > 0 ? hi : 1, 'submit');
    } else {
      setTimeAxis(c.options.scales.x, isFinite(lo) ? Math.min(lo, 0) : -d.window_s, 0, 'now');
    }
    fitRows('waterfall-box', shown.length, 16, 40);
    c.update('none');
  }

  function setWaterfallMode(mode) {
    waterfallMode = mode;
    for (const b of $('waterfall-mode').querySelectorAll('button')) {
      b.setAttribute('aria-pressed', String(b.dataset.mode === mode));
    }
    document.body.dataset.waterfallMode = mode;
    if (lastData) renderWaterfall(lastData);
  }

  function partitionSummary(job) {
    const parts = job.partitions || [];
    const done = parts.filter((p) => p.state === 'done' || p.state === 'proved').length;
    return parts.length ? done + ' / ' + parts.length : '–';
  }

  function renderJobs(d) {
    const now = d.now_s;
    const jobs = d.jobs || [];
    const active = jobs.filter((j) => !kFinished.has(j.state));
    const finished = jobs.filter((j) => kFinished.has(j.state));
    $('active-jobs').tBodies[0].replaceChildren(...(active.length ? active.map((j) =>
      el('tr', {'data-job': j.job, 'data-state': j.state},
         el('td', {class: 'num'}, j.job), el('td', {}, j.proof_type),
         el('td', {title: j.deadline_at_risk ? 'the estimate says its deadline is missed' : null},
            j.deadline_at_risk ? j.priority + ' (deadline at risk)' : j.priority),
         el('td', {}, badge(j.state)), el('td', {class: 'num'}, partitionSummary(j)),
         el('td', {class: 'num'}, fmtSeconds(now - j.submitted_s))))
      : [emptyRow(6, 'nothing in flight')]));
    $('finished-jobs').tBodies[0].replaceChildren(...(finished.length ? finished.map((j) => {
      const wall = typeof j.ended_s === 'number' ? j.ended_s - j.submitted_s : null;
      return el('tr', {'data-job': j.job, 'data-state': j.state, title: j.error || null},
                el('td', {class: 'num'}, j.job), el('td', {}, j.proof_type), el('td', {}, j.priority),
                el('td', {}, badge(j.state)), el('td', {class: 'num'}, (j.partitions || []).length),
                el('td', {class: 'num wall'}, fmtSeconds(wall)),
                el('td', {class: 'num'}, fmtAgo(now, j.ended_s)));
    }) : [emptyRow(7, 'no finished jobs yet')]));
  }

  function renderFailures(d) {
    const failures = d.failures || [];
    $('failures').tBodies[0].replaceChildren(...(failures.length ? failures.map((f) =>
      el('tr', {'data-job': f.job},
         el('td', {class: 'num nowrap'}, fmtAgo(d.now_s, f.t_s)), el('td', {class: 'num'}, f.job),
         el('td', {}, f.proof_type), el('td', {class: 'error', title: f.error}, f.error)))
      : [emptyRow(4, 'no failures')]));
  }

  function render(d) {
    renderHeader(d);
    renderCounters(d.counters);
    renderDevices(d);
    renderQueues(d.queues);
    renderMemory(d.budget);
    renderThroughput(d);
    renderWaterfall(d);
    renderJobs(d);
    renderFailures(d);
    lastData = d;
    document.body.dataset.updated = String(d.now_s);
  }

  // ---- polling ----------------------------------------------------------------------------

  function setConnection(state, text) {
    setBadge('connection', state, text);
    document.body.dataset.connection = state;
  }

  async function poll() {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), kFetchTimeoutMs);
    try {
      const r = await fetch('panel/data', {cache: 'no-store', signal: abort.signal});
      if (!r.ok) throw new Error('HTTP ' + r.status);
      const data = await r.json();
      render(data);
      setConnection('connected', 'live');
    } catch (e) {
      setConnection('disconnected', 'disconnected');
      $('connection').title = String(e && e.message ? e.message : e);
      console.error('panel: ' + e);
    } finally {
      clearTimeout(timer);
      setTimeout(poll, kPollMs);
    }
  }

  for (const b of $('waterfall-mode').querySelectorAll('button')) {
    b.addEventListener('click', () => setWaterfallMode(b.dataset.mode));
  }
  if (new URLSearchParams(location.search).get('waterfall') === 'submit') setWaterfallMode('submit');
  if (haveChart) {
    makeCharts();
  } else {
    document.body.dataset.charts = 'missing';
    console.error('panel: chart.js did not load; showing text only');
  }
  poll();
})();
