// Session views: the list of sessions, one session (charts of its renders
// and the timeline), and one render (request, breakdown, diff).

import {
  api, code, facts, fillRows, fmtBytes, fmtInt, fmtPct, h, href,
  link, makeChart, objectHref, PARTS, BUDGET_COLOR, replaceHashParam, table, describeError,
} from './lib.js';

const TIMELINE_PAGE = 200;
const BAR_CHART_MAX = 300; // more renders than this draw as stacked areas
const CHART_POINTS = 600;  // a longer session is sampled down to this many points
// A render that begins with less than this share of the previous request
// (which the provider may have cached) broke the cache.
const CACHE_BREAK = 0.9;

const enc = encodeURIComponent;
const heading = (text) => h('h1', { tabindex: '-1' }, text);
const count = (x) => (Array.isArray(x) ? x.length : x);

// ---------------------------------------------------------------- list

export async function sessionsView() {
  const [store, list] = await Promise.all([api('store'), api('sessions')]);
  const st = store.stats || {};
  const sessions = list.sessions || [];
  const columns = [
    { label: 'Session' }, { label: 'Chat messages', num: true }, { label: 'Pool entries', num: true },
    { label: 'Compactions', num: true }, { label: 'Renders', num: true }, { label: 'Last render', num: true },
  ];
  const rows = sessions.map((s) => [
    link(`/sessions/${enc(s.id)}`, {}, s.id),
    fmtInt(s.chat_messages), fmtInt(count(s.entries)), fmtInt(count(s.compactions)),
    fmtInt(s.renders), lastRender(s.last_render),
  ]);
  const node = h('div', null,
    heading('Sessions'),
    h('p', { class: 'lede', 'data-testid': 'store-summary' },
      'Store ', code(store.home), store.read_only ? ' (read-only)' : '',
      ` · ${fmtInt(st.live_objects)} live objects · ${fmtInt(st.versions)} versions · `,
      `${fmtBytes(st.content_bytes)} of content`),
    sessions.length
      ? table({ caption: 'Sessions of this store', columns, rows, testid: 'sessions-table' })
      : h('p', null, 'This store has no sessions yet.'));
  return { title: 'Sessions', node };
}

function lastRender(r) {
  if (r === null || r === undefined) return '—';
  if (typeof r === 'number') return fmtInt(r);
  return `${fmtInt(r.tokens)} of ${fmtInt(r.budget_tokens)}`;
}

// ---------------------------------------------------------------- session

// Pool entries fetched with a session: a long session holds thousands.
const POOL_ROWS = 500;

export async function sessionView(id, query) {
  const base = `sessions/${enc(id)}`;
  const [session, rendersResp, outputs] = await Promise.all([
    api(base, { entries: POOL_ROWS }), api(`${base}/renders`),
    api(`${base}/tool-outputs`).catch((e) => ({ error: e })),
  ]);
  const renders = rendersResp.renders || [];
  const last = session.last_render;
  const charts = renderCharts(id, renders);
  const timeline = timelineSection(id, renders, Number(query.get('page')) || 1);

  const node = h('div', null,
    h('p', { class: 'crumbs' }, h('a', { href: '#/sessions' }, 'Sessions'), ' / ', id),
    heading(`Session ${id}`),
    facts([
      ['Chat messages', fmtInt(session.chat_messages)],
      ['Ingested as', session.ingest_format],
      ['Pool entries', fmtInt(session.entries_total)],
      ['Compactions', fmtInt(count(session.compactions))],
      ['Renders', fmtInt(session.renders)],
      ['Last render', last ? `${fmtInt(last.tokens)} of ${fmtInt(last.budget_tokens)} tokens` : null],
    ], 'session-facts'),
    charts.node,
    timeline,
    poolSection(id, session.entries || [], session.entries_total),
    toolOutputsSection(id, outputs));
  return { title: `Session ${id}`, node, mounted: charts.mounted };
}

// Prefix reuse: the share of a render's request that begins as the
// previous request does (null for the first render).
function reuseOf(r) {
  if (r.n === 1 || !r.bytes || r.prefix_bytes === null || r.prefix_bytes === undefined) return null;
  return r.prefix_bytes / r.bytes;
}

// For each render, the share of the previous request it begins with: what
// a provider's prompt cache could reuse. A growing chat keeps ~100%; a
// collapse or compaction early in the request drops it.
function keptShares(renders) {
  const kept = new Map();
  renders.forEach((r, i) => {
    const prev = renders[i - 1];
    if (prev && prev.n === r.n - 1 && prev.bytes && r.prefix_bytes !== null && r.prefix_bytes !== undefined) {
      kept.set(r.n, Math.min(1, r.prefix_bytes / prev.bytes));
    }
  });
  return kept;
}

function renderCharts(id, renders) {
  const tokensCanvas = h('canvas', {
    role: 'img', 'data-testid': 'tokens-chart',
    'aria-label': `Tokens per render of session ${id}, stacked by part, with the budget as a line`,
  });
  const reuseCanvas = h('canvas', {
    role: 'img', 'data-testid': 'reuse-chart',
    'aria-label': `Prefix reuse per render of session ${id}: the share of each request's bytes that repeat the previous request`,
  });
  if (!renders.length) {
    return { node: h('p', null, 'No recorded renders yet: charts and the timeline appear after the first render.'), mounted: null };
  }
  const node = h('section', { class: 'charts', 'aria-labelledby': 'charts-h' },
    h('h2', { id: 'charts-h' }, 'Tokens and prefix reuse per render'),
    h('div', { class: 'chart-pair' },
      h('figure', null,
        h('div', { class: 'chart-box' }, tokensCanvas),
        h('figcaption', { 'data-testid': 'tokens-summary' }, tokensSummary(renders))),
      h('figure', null,
        h('div', { class: 'chart-box' }, reuseCanvas),
        h('figcaption', { 'data-testid': 'reuse-summary' }, reuseSummary(id, renders)))));
  const mounted = () => {
    makeChart(tokensCanvas, tokensChartConfig(id, renders));
    makeChart(reuseCanvas, reuseChartConfig(id, renders));
  };
  return { node, mounted };
}

// At most `max` renders, one per run of consecutive ones: the one `better`
// prefers (the largest, the worst reuse), so peaks and breaks stay visible
// when a long session has more renders than the chart has pixels.
function sample(renders, max, better) {
  if (renders.length <= max) return renders;
  const run = Math.ceil(renders.length / max);
  const out = [];
  for (let i = 0; i < renders.length; i += run) {
    let best = renders[i];
    for (let j = i + 1; j < Math.min(i + run, renders.length); j++) {
      if (better(renders[j], best)) best = renders[j];
    }
    out.push(best);
  }
  return out;
}

function chartOptions(id, renders, points, yAxis, legend) {
  const bars = points.isBars;
  return {
    animation: false, responsive: true, maintainAspectRatio: false, normalized: true,
    parsing: bars ? undefined : false,
    interaction: { mode: 'index', intersect: false },
    onClick: (evt, _els, chart) => {
      const hit = chart.getElementsAtEventForMode(evt, 'index', { intersect: false }, true)[0];
      if (hit) location.hash = href(`/sessions/${enc(id)}/renders/${points[hit.index].n}`);
    },
    plugins: {
      legend: legend ? { position: 'bottom', labels: { boxWidth: 12 } } : { display: false },
      tooltip: { callbacks: { title: (items) => (items.length ? `Render ${points[items[0].dataIndex].n}` : '') } },
    },
    scales: {
      x: {
        type: bars ? 'category' : 'linear', stacked: true, title: { display: true, text: 'render' },
        ticks: { maxTicksLimit: 20, sampleSize: 20, precision: 0 },
        min: bars ? undefined : renders[0].n, max: bars ? undefined : renders[renders.length - 1].n,
      },
      y: yAxis,
    },
  };
}

// Tokens per render, stacked by part (bars for a short session, areas for a
// long one), with the budget as a stepped line.
function tokensChartConfig(id, renders) {
  const points = sample(renders, CHART_POINTS, (a, b) => a.tokens > b.tokens);
  points.isBars = renders.length <= BAR_CHART_MAX;
  const bars = points.isBars;
  const series = (value) => (bars ? points.map(value) : points.map((r) => ({ x: r.n, y: value(r) })));
  return {
    data: {
      labels: bars ? points.map((r) => r.n) : undefined,
      datasets: [
        ...PARTS.map(([key, label, color], i) => ({
          type: bars ? 'bar' : 'line', label, stack: 'parts', backgroundColor: color, borderColor: color,
          data: series((r) => (r.breakdown ? r.breakdown[key] : 0)),
          // Areas fill down to the part below ('stack' is quadratic in points).
          fill: bars ? undefined : (i === 0 ? 'origin' : '-1'), pointRadius: 0, borderWidth: bars ? 0 : 1,
          barPercentage: 1, categoryPercentage: 0.9,
        })),
        {
          type: 'line', label: 'Budget', stack: 'budget', data: series((r) => r.budget_tokens),
          borderColor: BUDGET_COLOR, backgroundColor: BUDGET_COLOR, borderDash: [6, 4], borderWidth: 2,
          pointRadius: 0, fill: false, stepped: true,
        },
      ],
    },
    options: chartOptions(id, renders, points,
      { stacked: true, beginAtZero: true, title: { display: true, text: 'tokens' } }, true),
  };
}

// Prefix reuse per render in percent; renders that broke the cache in red.
function reuseChartConfig(id, renders) {
  const kept = keptShares(renders);
  const keptOf = (r) => (kept.has(r.n) ? kept.get(r.n) : Infinity);
  const points = sample(renders, CHART_POINTS, (a, b) => keptOf(a) < keptOf(b));
  points.isBars = false;
  const few = renders.length <= BAR_CHART_MAX;
  const broke = (r) => keptOf(r) < CACHE_BREAK;
  const config = {
    type: 'line',
    data: {
      datasets: [{
        label: 'Prefix reuse (%)',
        data: points.map((r) => { const x = reuseOf(r); return { x: r.n, y: x === null ? null : x * 100 }; }),
        borderColor: '#4e79a7', backgroundColor: '#4e79a7', borderWidth: 1.5, spanGaps: false,
        pointRadius: points.map((r) => (broke(r) ? (few ? 3 : 2) : few ? 2 : 0)),
        pointBackgroundColor: points.map((r) => (broke(r) ? BUDGET_COLOR : '#4e79a7')),
        pointBorderColor: points.map((r) => (broke(r) ? BUDGET_COLOR : '#4e79a7')),
      }],
    },
    options: chartOptions(id, renders, points, { min: 0, max: 100, title: { display: true, text: 'prefix reuse %' } }, false),
  };
  config.options.plugins.tooltip.callbacks.afterLabel = (item) => {
    const r = points[item.dataIndex];
    return kept.has(r.n) ? `begins with ${fmtPct(kept.get(r.n), 1)} of render ${r.n - 1}` : '';
  };
  return config;
}

function tokensSummary(renders) {
  let peak = renders[0];
  let over = 0;
  for (const r of renders) {
    if (r.tokens > peak.tokens) peak = r;
    if (r.tokens > r.budget_tokens) over++;
  }
  const last = renders[renders.length - 1];
  return `${fmtInt(renders.length)} renders. Last: ${fmtInt(last.tokens)} of a ${fmtInt(last.budget_tokens)}-token budget. ` +
    `Peak: ${fmtInt(peak.tokens)} tokens at render ${peak.n} (${fmtPct(peak.tokens / peak.budget_tokens)} of its budget).` +
    (over ? ` ${over} renders over budget.` : '') +
    (renders.length > CHART_POINTS
      ? ` Each point of the charts stands for ${Math.ceil(renders.length / CHART_POINTS)} consecutive renders: the largest (tokens) or the least reused.`
      : '');
}

function reuseSummary(id, renders) {
  const values = renders.map(reuseOf).filter((x) => x !== null).sort((a, b) => a - b);
  if (!values.length) return 'Prefix reuse needs two renders or more.';
  const median = values[Math.floor(values.length / 2)];
  const kept = keptShares(renders);
  const breaks = renders.filter((r) => kept.has(r.n) && kept.get(r.n) < CACHE_BREAK);
  const shown = breaks.slice(0, 12);
  return h('span', null,
    `Prefix reuse: the share of each request that begins as the previous one does (median ${fmtPct(median, 1)}). `,
    breaks.length
      ? [`The provider's cache broke (in red) at ${breaks.length} ${breaks.length === 1 ? 'render' : 'renders'}, `,
        `which begin with less than ${fmtPct(CACHE_BREAK)} of the previous request: `,
        shown.map((r, i) => [i ? ', ' : '', link(`/sessions/${enc(id)}/renders/${r.n}`, {}, String(r.n))]),
        breaks.length > shown.length ? ' …' : '.']
      : `Every render begins with at least ${fmtPct(CACHE_BREAK)} of the previous request.`);
}

function timelineSection(id, renders, startPage) {
  const columns = [
    { label: 'Render' }, { label: 'Tokens', num: true }, { label: 'Budget', num: true }, { label: 'Use', num: true },
    ...PARTS.map(([, label]) => ({ label, num: true })),
    { label: 'Bytes', num: true }, { label: 'Prefix reuse', num: true },
  ];
  const pages = Math.max(1, Math.ceil(renders.length / TIMELINE_PAGE));
  let page = Math.min(Math.max(1, startPage), pages);
  const kept = keptShares(renders);
  const reuseCell = (r) => (kept.has(r.n) && kept.get(r.n) < CACHE_BREAK
    ? h('span', { class: 'broke', title: `begins with ${fmtPct(kept.get(r.n), 1)} of render ${r.n - 1}` },
      fmtPct(reuseOf(r), 1), h('span', { class: 'visually-hidden' }, ' (the cache broke)'))
    : fmtPct(reuseOf(r), 1));
  const t = table({ caption: `Renders of session ${id}`, columns, rows: [], testid: 'timeline' });
  const tbody = t.tBodies[0];
  const status = h('p', { class: 'pager-status', 'aria-live': 'polite', 'data-testid': 'timeline-range' });
  const prev = h('button', { type: 'button', 'data-testid': 'timeline-prev' }, `Previous ${TIMELINE_PAGE}`);
  const next = h('button', { type: 'button', 'data-testid': 'timeline-next' }, `Next ${TIMELINE_PAGE}`);
  const first = h('button', { type: 'button', 'data-testid': 'timeline-first' }, 'First');
  const latest = h('button', { type: 'button', 'data-testid': 'timeline-latest' }, 'Latest');
  const draw = () => {
    const slice = renders.slice((page - 1) * TIMELINE_PAGE, page * TIMELINE_PAGE);
    fillRows(tbody, columns, slice.map((r) => [
      link(`/sessions/${enc(id)}/renders/${r.n}`, {}, String(r.n), { 'data-testid': 'render-link' }),
      fmtInt(r.tokens), fmtInt(r.budget_tokens), fmtPct(r.tokens / r.budget_tokens),
      ...PARTS.map(([key]) => fmtInt(r.breakdown ? r.breakdown[key] : null)),
      fmtBytes(r.bytes), reuseCell(r),
    ]), (i) => ({ 'data-testid': 'timeline-row', 'data-n': slice[i].n }));
    const from = (page - 1) * TIMELINE_PAGE + 1;
    status.textContent = renders.length
      ? `Renders ${fmtInt(from)}–${fmtInt(from + slice.length - 1)} of ${fmtInt(renders.length)}`
      : 'No renders';
    prev.disabled = first.disabled = page <= 1;
    next.disabled = latest.disabled = page >= pages;
  };
  const go = (to) => {
    page = Math.min(Math.max(1, to), pages);
    replaceHashParam({ page: page === 1 ? null : page });
    draw();
  };
  prev.addEventListener('click', () => go(page - 1));
  next.addEventListener('click', () => go(page + 1));
  first.addEventListener('click', () => go(1));
  latest.addEventListener('click', () => go(pages));
  draw();
  return h('section', { 'aria-labelledby': 'timeline-h' },
    h('h2', { id: 'timeline-h' }, 'Timeline ', h('span', { class: 'count', 'data-testid': 'timeline-count' }, `${fmtInt(renders.length)} renders`)),
    h('div', { class: 'pager' }, h('span', { class: 'buttons' }, first, prev), status, h('span', { class: 'buttons' }, next, latest)),
    h('div', { class: 'table-scroll' }, t));
}

function poolSection(id, entries, total) {
  const body = h('div');
  const shown = entries.length < total ? ` (the first ${fmtInt(entries.length)} shown)` : '';
  const details = h('details', { class: 'pool', id: 'pool' },
    h('summary', null, `Pool: ${fmtInt(total)} objects${shown}`), body);
  // Built when opened: a pool can hold thousands of entries.
  details.addEventListener('toggle', () => {
    if (!details.open || body.firstChild) return;
    const state = (e) => [e.pinned_version ? `pinned v${e.pinned_version}` : null, e.active ? 'active' : null,
      e.collapsed ? 'collapsed' : null, e.compacted ? 'compacted' : null].filter(Boolean).join(', ') || 'index';
    body.append(table({
      caption: `Objects in the pools of session ${id}`,
      columns: [{ label: 'Key' }, { label: 'Kind' }, { label: 'Version', num: true }, { label: 'Tokens', num: true }, { label: 'State' }, { label: 'Title' }],
      rows: entries.map((e) => [
        h('a', { href: objectHref(e.key, e.scope, { session: id }) }, e.key),
        e.kind, fmtInt(e.version), fmtInt(e.tokens), state(e), e.title,
      ]),
      testid: 'pool-table',
    }));
  });
  return h('section', { 'aria-label': 'Pool' }, details);
}

function toolOutputsSection(id, outputs) {
  const list = outputs.outputs || [];
  return h('section', { 'aria-labelledby': 'outputs-h' },
    h('h2', { id: 'outputs-h' }, 'Tool-output files ', h('span', { class: 'count' }, outputs.error ? '' : String(list.length))),
    outputs.error
      ? h('p', { role: 'alert', class: 'inline-error' }, describeError(outputs.error))
      : list.length
        ? table({
          caption: `Tool-output files of session ${id}`,
          columns: [{ label: 'Tool' }, { label: 'Saved' }, { label: 'Size', num: true }, { label: 'Where' }, { label: 'Object' }],
          rows: list.map((o) => [
            o.tool_name, new Date(o.timestamp_ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
            fmtBytes(o.size_bytes), h('code', { class: 'wrap' }, o.pointer + (o.in_memory ? ' (in memory)' : '')),
            o.ref ? link('/object', { ref: o.ref }, 'open') : '—',
          ]),
          testid: 'tool-outputs',
        })
        : h('p', null, 'None.'));
}

// ---------------------------------------------------------------- render

export async function renderView(id, n, query) {
  const base = `sessions/${enc(id)}`;
  const [r, session] = await Promise.all([api(`${base}/renders/${n}`), api(base, { entries: 0 })]);
  const total = session.renders;
  const nav = h('nav', { class: 'pager', 'aria-label': 'Renders' },
    n > 1 ? link(`/sessions/${enc(id)}/renders/${n - 1}`, {}, `← Render ${n - 1}`, { 'data-testid': 'render-prev', rel: 'prev' })
      : h('span', { class: 'muted' }, 'First render'),
    h('span', { class: 'pager-status' }, `Render ${n} of ${fmtInt(total)}`),
    n < total ? link(`/sessions/${enc(id)}/renders/${n + 1}`, {}, `Render ${n + 1} →`, { 'data-testid': 'render-next', rel: 'next' })
      : h('span', { class: 'muted' }, 'Latest render'));

  const node = h('div', null,
    h('p', { class: 'crumbs' }, h('a', { href: '#/sessions' }, 'Sessions'), ' / ',
      link(`/sessions/${enc(id)}`, {}, id), ' / ', `render ${n}`),
    h('h1', { tabindex: '-1', 'data-testid': 'render-heading' }, `Render ${n} of session ${id}`),
    nav,
    facts([
      ['Format', r.format],
      ['Tokens', h('span', { 'data-testid': 'render-tokens' }, String(r.tokens))],
      ['Budget', h('span', { 'data-testid': 'render-budget' }, String(r.budget_tokens))],
      ['Request size', `${fmtBytes(r.bytes)} (${fmtInt(r.bytes)} bytes)`],
      [`Prefix shared with render ${n - 1}`, r.prefix_bytes === null || r.prefix_bytes === undefined ? null
        : `${fmtInt(r.prefix_bytes)} bytes (${fmtPct(r.bytes ? r.prefix_bytes / r.bytes : null, 1)})`],
      ['Index', `${fmtInt(r.index_listed)} of ${fmtInt(r.index_total)} entries listed`],
      ['Messages in compactions', fmtInt(r.compacted_messages)],
    ], 'render-facts'),
    breakdownSection(r),
    reliefSection(id, r),
    diffSection(id, r.diff),
    requestSection(r.request, query));
  return { title: `Render ${n} · ${id}`, node };
}

function breakdownSection(r) {
  const scale = Math.max(r.budget_tokens, r.tokens, 1);
  const pct = (x) => `${(100 * x / scale).toFixed(3)}%`;
  const b = r.breakdown || {};
  const label = `${r.tokens} tokens of a ${r.budget_tokens}-token budget: ` +
    PARTS.map(([key, name]) => `${name.toLowerCase()} ${b[key]}`).join(', ');
  const bar = h('div', { class: 'stackbar', role: 'img', 'aria-label': label, 'data-testid': 'breakdown-bar' },
    PARTS.filter(([key]) => b[key] > 0).map(([key, name, color]) => h('div', {
      class: 'stackbar-part', title: `${name}: ${b[key]} tokens`, style: { width: pct(b[key]), background: color },
    })),
    h('div', { class: 'stackbar-budget', style: { left: pct(r.budget_tokens) }, title: `budget ${r.budget_tokens}` }));
  const legend = h('ul', { class: 'legend' }, PARTS.map(([key, name, color]) => h('li', null,
    h('span', { class: 'swatch', style: { background: color }, 'aria-hidden': 'true' }),
    h('span', { class: 'legend-label' }, name),
    h('span', { class: 'legend-num', 'data-testid': `breakdown-${key}` }, String(b[key])),
    h('span', { class: 'legend-pct' }, fmtPct(b[key] / r.budget_tokens, 1)))),
  h('li', null,
    h('span', { class: 'swatch budget', style: { borderColor: BUDGET_COLOR }, 'aria-hidden': 'true' }),
    h('span', { class: 'legend-label' }, 'Budget'),
    h('span', { class: 'legend-num' }, String(r.budget_tokens)),
    h('span', { class: 'legend-pct' }, `${fmtPct(r.tokens / r.budget_tokens, 1)} used`)));
  return h('section', { 'aria-labelledby': 'breakdown-h' },
    h('h2', { id: 'breakdown-h' }, 'Token breakdown against the budget'),
    h('div', { class: 'stackbar-wrap' }, bar), legend);
}

// What this render did to fit: collapses, a compaction, dropped content,
// pinned/active conflicts.
function reliefSection(id, r) {
  const items = [];
  if (r.collapsed && r.collapsed.length) {
    items.push(h('li', null, `Collapsed for budget: `, keyLinks(id, r.collapsed, 'render-collapsed')));
  }
  if (r.compacted) items.push(h('li', null, 'Compacted: ', compactionItem(id, r.compacted, 'render-compacted')));
  if (r.dropped && r.dropped.length) {
    items.push(h('li', null, 'Left out to fit: ', h('ul', { 'data-testid': 'render-dropped' }, r.dropped.map((d) => h('li', null,
      h('a', { href: objectHref(d.key, null, { session: id }) }, d.key), ` v${d.version}, ${fmtInt(d.tokens)} tokens `,
      link('/object', { ref: d.ref }, 'by ref'))))));
  }
  if (r.conflicts && r.conflicts.length) {
    items.push(h('li', null, 'Pinned and active at different versions: ', r.conflicts.map((c, i) => [i ? ', ' : '',
      h('a', { href: objectHref(c.key, null, { session: id }) }, c.key), ` (pinned v${c.pinned_version}, active v${c.active_version})`])));
  }
  if (!items.length) return null;
  return h('section', { 'aria-labelledby': 'relief-h' },
    h('h2', { id: 'relief-h' }, 'What this render did to fit'), h('ul', { class: 'plain' }, items));
}

function keyLinks(id, keys, testid) {
  return h('ul', { class: 'keys', 'data-testid': testid }, keys.map((k) => h('li', { 'data-testid': `${testid}-item` },
    h('a', { href: href('/object', { key: k, session: id }) }, k))));
}

// A compaction with a button that loads the messages it replaced.
function compactionItem(id, c, testid) {
  const out = h('div', { class: 'expanded', hidden: true });
  const button = h('button', { type: 'button', 'aria-expanded': 'false', class: 'small' }, 'Show the messages it replaced');
  button.addEventListener('click', async () => {
    const open = button.getAttribute('aria-expanded') === 'true';
    if (open) {
      out.hidden = true;
      button.setAttribute('aria-expanded', 'false');
      button.textContent = 'Show the messages it replaced';
      return;
    }
    if (!out.firstChild) {
      button.disabled = true;
      try {
        const res = await api(`sessions/${enc(id)}/expand`, { compaction: c.ref });
        const messages = res.messages || [];
        out.append(h('p', { class: 'muted' }, `${messages.length} messages, as stored:`),
          h('ol', { class: 'messages', start: String(c.first_message), 'data-testid': 'expanded-messages' },
            messages.map((m) => h('li', null, typeof m === 'string' ? h('pre', { class: 'pj-text' }, m) : prettyJson(m)))));
      } catch (e) {
        out.append(h('p', { role: 'alert', class: 'inline-error' }, describeError(e)));
      } finally {
        button.disabled = false;
      }
    }
    out.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    button.textContent = 'Hide the messages';
  });
  return h('div', { class: 'compaction', 'data-testid': testid },
    `chat messages ${c.first_message}–${c.end_message - 1} (${c.turns} turns) `, code(c.ref, { class: 'wrap' }), ' ', button, out);
}

function diffSection(id, diff) {
  const title = h('h2', { id: 'diff-h' }, 'Changes since the previous render');
  if (!diff) {
    return h('section', { 'aria-labelledby': 'diff-h', 'data-testid': 'render-diff' }, title,
      h('p', null, 'The first render: nothing to compare with.'));
  }
  const delta = (a, b) => { const d = b - a; return d === 0 ? '0' : (d > 0 ? '+' : '−') + fmtInt(Math.abs(d)); };
  const bd = diff.breakdown || { from: {}, to: {} };
  const changes = table({
    caption: `Tokens in render ${diff.from} and render ${diff.to}`,
    columns: [{ label: 'Part' }, { label: `Render ${diff.from}`, num: true }, { label: `Render ${diff.to}`, num: true }, { label: 'Change', num: true }],
    rows: [
      ...PARTS.map(([key, name]) => [name, fmtInt(bd.from[key]), fmtInt(bd.to[key]), delta(bd.from[key], bd.to[key])]),
      ['Total', fmtInt(diff.tokens.from), fmtInt(diff.tokens.to), delta(diff.tokens.from, diff.tokens.to)],
    ],
    testid: 'diff-tokens',
  });
  const group = (label, keys, testid) => h('div', { class: 'diff-group' },
    h('h3', null, `${label} `, h('span', { class: 'count' }, String(keys.length))),
    keys.length ? keyLinks(id, keys, testid) : h('p', { class: 'muted' }, 'None.'));
  const compacted = diff.compacted || [];
  return h('section', { 'aria-labelledby': 'diff-h', 'data-testid': 'render-diff' }, title,
    h('div', { class: 'diff-grid' },
      group('Entered', diff.entered || [], 'diff-entered'),
      group('Left', diff.left || [], 'diff-left'),
      group('Collapsed', diff.collapsed || [], 'diff-collapsed'),
      h('div', { class: 'diff-group' },
        h('h3', null, 'Compacted ', h('span', { class: 'count' }, String(compacted.length))),
        compacted.length
          ? h('ul', { class: 'plain', 'data-testid': 'diff-compacted' }, compacted.map((c) =>
            h('li', null, compactionItem(id, c, 'diff-compacted-item'))))
          : h('p', { class: 'muted' }, 'None.'))),
    h('details', { class: 'diff-tokens' }, h('summary', null,
      `Tokens: ${fmtInt(diff.tokens.from)} → ${fmtInt(diff.tokens.to)} (${delta(diff.tokens.from, diff.tokens.to)})`), changes));
}

// The request as the model saw it: a readable tree of its JSON, or the raw
// bytes exactly as sent.
function requestSection(request, query) {
  let parsed;
  try {
    parsed = JSON.parse(request);
  } catch {
    parsed = undefined;
  }
  const pretty = h('div', { class: 'request-pretty', 'data-testid': 'request-pretty' },
    parsed === undefined ? h('p', { class: 'muted' }, 'The request is not JSON; see the raw bytes.') : prettyJson(parsed));
  const raw = h('pre', { class: 'request-raw', 'data-testid': 'request-raw', tabindex: '0' }, request);
  const prettyBtn = h('button', { type: 'button', 'data-testid': 'request-mode-pretty' }, 'Pretty');
  const rawBtn = h('button', { type: 'button', 'data-testid': 'request-mode-raw' }, 'Raw bytes');
  const setMode = (mode, remember) => {
    const isRaw = mode === 'raw';
    raw.hidden = !isRaw;
    pretty.hidden = isRaw;
    rawBtn.setAttribute('aria-pressed', String(isRaw));
    prettyBtn.setAttribute('aria-pressed', String(!isRaw));
    if (remember) replaceHashParam({ request: isRaw ? 'raw' : null });
  };
  prettyBtn.addEventListener('click', () => setMode('pretty', true));
  rawBtn.addEventListener('click', () => setMode('raw', true));
  setMode(query.get('request') === 'raw' || parsed === undefined ? 'raw' : 'pretty', false);
  return h('section', { 'aria-labelledby': 'request-h' },
    h('h2', { id: 'request-h' }, 'The request ', h('span', { class: 'count' }, `${fmtInt(new TextEncoder().encode(request).length)} bytes`)),
    h('div', { class: 'toggle', role: 'group', 'aria-label': 'Request view' }, prettyBtn, rawBtn),
    pretty, raw);
}

const FIRST_KEYS = ['role', 'type', 'name', 'id', 'tool_call_id', 'tool_use_id'];
const keyRank = (k) => { const i = FIRST_KEYS.indexOf(k); return i < 0 ? FIRST_KEYS.length : i; };

// A JSON value as nested lists; multi-line strings as text blocks.
export function prettyJson(v) {
  if (Array.isArray(v)) {
    if (!v.length) return h('span', { class: 'pj-lit' }, '[]');
    return h('ol', { class: 'pj-arr', start: '0' }, v.map((x) => h('li', null, prettyJson(x))));
  }
  if (v && typeof v === 'object') {
    // Who speaks first: the request's JSON has its keys sorted.
    const keys = Object.keys(v).sort((a, b) => keyRank(a) - keyRank(b));
    if (!keys.length) return h('span', { class: 'pj-lit' }, '{}');
    return h('dl', { class: 'pj-obj' }, keys.map((k) => [h('dt', null, k), h('dd', null, prettyJson(v[k]))]));
  }
  if (typeof v === 'string') {
    return v.includes('\n') || v.length > 120 ? h('pre', { class: 'pj-text' }, v) : h('span', { class: 'pj-str' }, v);
  }
  return h('span', { class: 'pj-lit' }, JSON.stringify(v));
}
