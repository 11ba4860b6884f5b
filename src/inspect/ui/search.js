// Search: literal, regex (RE2) or relevant (find_relevant), hits in context.

import { api, field, fmtInt, h, href, link, select, textInput } from './lib.js';

const MODES = [['literal', 'Literal'], ['regex', 'Regex (RE2)'], ['relevant', 'Relevant (BM25)']];

export async function searchView(query) {
  const q = query.get('q') || '';
  const mode = query.get('mode') || 'literal';
  const prefix = query.get('prefix') || '';
  const scope = query.get('scope') || '';
  const res = q ? await api('search', { q, mode, prefix, scope, limit: 100 }) : null;

  const form = h('form', { class: 'filters search-form', role: 'search', 'aria-label': 'Search the store' },
    field('Search for', textInput('search-q', q, { type: 'search', placeholder: 'text, a regex, or a question', 'data-testid': 'search-q' })),
    field('Mode', select('search-mode', MODES, mode)),
    field('Key prefix', textInput('search-prefix', prefix)),
    field('Scope', textInput('search-scope', scope, { placeholder: 'global' })),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit', 'data-testid': 'search-submit' }, 'Search')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const value = (id) => form.querySelector('#' + id).value.trim();
    location.hash = href('/search', {
      q: form.querySelector('#search-q').value, mode: value('search-mode'),
      prefix: value('search-prefix'), scope: value('search-scope'),
    });
  });

  const node = h('div', null, h('h1', { tabindex: '-1' }, 'Search'), form,
    res ? (mode === 'relevant' ? relevantResults(res) : matchResults(res, q))
      : h('p', { class: 'muted' }, 'Searches every value the global view sees (a key prefix narrows it).'));
  return { title: q ? `Search: ${q}` : 'Search', node };
}

function matchResults(res, q) {
  const matches = res.matches || [];
  const summary = `${fmtInt(matches.length)} ${matches.length === 1 ? 'match' : 'matches'} for “${q}” in ${fmtInt(res.variables_searched)} values` +
    ` (${fmtInt(res.bytes_read)} bytes read)` + (res.max_results_reached ? '; stopped at the limit, more may exist' : '') + '.';
  return h('section', { 'aria-labelledby': 'results-h', 'data-testid': 'search-results' },
    h('h2', { id: 'results-h' }, 'Results'),
    h('p', { 'data-testid': 'search-summary' }, summary),
    (res.skipped || []).length ? h('p', { class: 'muted' }, `Skipped: ${res.skipped.join('; ')}`) : null,
    h('ol', { class: 'hits' }, matches.map((m) => h('li', { class: 'hit', 'data-testid': 'search-hit' },
      h('p', { class: 'hit-head' },
        link('/object', { ref: m.ref }, m.key, { 'data-testid': 'hit-key' }), ` line ${fmtInt(m.line)}`),
      h('pre', { class: 'context' },
        (m.before || []).map((l) => contextLine(l.line, l.text, 'before')),
        h('span', { class: 'ctx-line match' }, h('span', { class: 'ln' }, String(m.line)),
          highlight(m.preview, m.byte_offset - m.line_offset, m.length), m.preview_truncated ? ' …' : ''),
        '\n',
        (m.after || []).map((l) => contextLine(l.line, l.text, 'after')))))));
}

function contextLine(n, text, cls) {
  return [h('span', { class: `ctx-line ${cls}` }, h('span', { class: 'ln' }, String(n)), text), '\n'];
}

// The line with bytes [start, start+length) marked; offsets are in UTF-8
// bytes.
function highlight(line, start, length) {
  const bytes = new TextEncoder().encode(line);
  if (!(start >= 0) || start > bytes.length) return line;
  const dec = new TextDecoder();
  const end = Math.min(bytes.length, start + length);
  return [dec.decode(bytes.slice(0, start)), h('mark', null, dec.decode(bytes.slice(start, end))), dec.decode(bytes.slice(end))];
}

function relevantResults(res) {
  const hits = res.hits || [];
  return h('section', { 'aria-labelledby': 'results-h', 'data-testid': 'search-results' },
    h('h2', { id: 'results-h' }, 'Results'),
    h('p', { 'data-testid': 'search-summary' }, `${fmtInt(hits.length)} passages, most relevant first.`),
    h('ol', { class: 'hits' }, hits.map((hit) => h('li', { class: 'hit', 'data-testid': 'search-hit' },
      h('p', { class: 'hit-head' },
        link('/object', { ref: hit.ref }, hit.key, { 'data-testid': 'hit-key' }),
        ` · score ${Number(hit.score).toFixed(3)} · bytes ${fmtInt(hit.byte_offset)}–${fmtInt(hit.byte_offset + hit.byte_length)}`,
        ` · ${fmtInt(hit.tokens)} tokens · ${hit.method}`),
      h('pre', { class: 'context' }, hit.preview)))));
}
