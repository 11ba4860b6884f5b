// Notes: every agent note with its frontmatter, and one note with its body,
// changelog and links (each opening the linked note).

import { api, code, facts, field, h, href, link, table, textInput } from './lib.js';

export async function notesView(query) {
  const q = query.get('q') || '';
  const res = await api('notes', { q });
  const notes = res.notes || [];
  const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Search notes' },
    field('Search notes', textInput('notes-q', q, { type: 'search' })),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit' }, 'Search'),
      q ? h('a', { href: '#/notes', class: 'button-link' }, 'All notes') : null));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    location.hash = href('/notes', { q: form.querySelector('#notes-q').value.trim() });
  });
  const rows = notes.map((n) => {
    const hd = n.header || {};
    return [
      link('/note', { path: n.path }, n.path, { 'data-testid': 'note-link' }),
      hd.type, hd.agent, (hd.tags || []).join(', '), hd.timestamp, hd.session_id || '—',
    ];
  });
  const node = h('div', null, h('h1', { tabindex: '-1' }, 'Notes'), form,
    notes.length
      ? h('div', { class: 'table-scroll' }, table({
        caption: q ? `Notes matching ${q}` : 'Every note',
        columns: [{ label: 'Path' }, { label: 'Type' }, { label: 'Agent' }, { label: 'Tags' }, { label: 'Written' }, { label: 'Session' }],
        rows, testid: 'notes-table',
      }))
      : h('p', null, q ? 'No note matches.' : 'No notes yet.'));
  return { title: 'Notes', node };
}

export async function noteView(query) {
  const n = await api('note', { path: query.get('path') });
  const hd = n.header || {};
  const links = n.links || [];
  const node = h('div', null,
    h('p', { class: 'crumbs' }, h('a', { href: '#/notes' }, 'Notes'), ' / ', hd.agent || ''),
    h('h1', { tabindex: '-1', 'data-testid': 'note-heading' }, n.path),
    facts([
      ['Type', hd.type],
      ['Agent', hd.agent],
      ['Session', hd.session_id],
      ['Written', hd.timestamp],
      ['Tags', (hd.tags || []).join(', ')],
      ['Object', n.ref ? link('/object', { ref: n.ref }, n.key) : n.key],
    ], 'note-frontmatter'),
    (n.problems && (Array.isArray(n.problems) ? n.problems.length : true))
      ? h('div', { class: 'problems', role: 'note' }, h('h2', null, 'Problems'),
        h('ul', null, (Array.isArray(n.problems) ? n.problems : [n.problems]).map((p) =>
          h('li', null, typeof p === 'string' ? p : JSON.stringify(p)))))
      : null,
    h('section', { 'aria-labelledby': 'body-h' }, h('h2', { id: 'body-h' }, 'Body'),
      h('pre', { class: 'note-body', 'data-testid': 'note-body', tabindex: '0' }, n.body)),
    h('section', { 'aria-labelledby': 'links-h' }, h('h2', { id: 'links-h' }, 'Links'),
      links.length
        ? h('ul', { 'data-testid': 'note-links' }, links.map((l) => h('li', null, l.exists
          ? link('/note', { path: l.path }, l.path, { 'data-testid': 'note-link' })
          : [code(l.path), ' (missing)'])))
        : h('p', { class: 'muted' }, 'This note links to no other note.')),
    h('section', { 'aria-labelledby': 'changelog-h' }, h('h2', { id: 'changelog-h' }, 'Changelog'),
      (n.changelog || []).length
        ? h('ul', { class: 'changelog', 'data-testid': 'note-changelog' }, n.changelog.map((line) => h('li', null, line)))
        : h('p', { class: 'muted' }, 'No changelog entries.')));
  return { title: n.path, node };
}
