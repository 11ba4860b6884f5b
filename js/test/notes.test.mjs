// Notebook from Node: agent context notes written, changed, linked and
// searched, the JSON forms the CLI prints, errors, and notes shared with
// the CLI (same home, same default root).
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import {ck, ctxkitBinary, freshStore} from './helpers.mjs';

// The CLI's environment for `home`: nothing else chooses the notes root.
function cliEnv(home) {
  const env = {...process.env, CTXKIT_HOME: home};
  for (const name of ['SFA_CONTEXT_STORE', 'SFA_CONFIG', 'SFA_SESSION_ID',
                      'CTXKIT_TOOL_CONTEXT_DIR', 'CTXKIT_AGENT',
                      'CTXKIT_SESSION']) {
    delete env[name];
  }
  return env;
}

function cliJson(home, args) {
  return JSON.parse(execFileSync(ctxkitBinary, ['--json', ...args],
                                 {env: cliEnv(home)}).toString());
}

const auth = {agent: 'code-reviewer', type: 'finding', tags: ['security'],
              slug: 'Auth vulnerability',
              body: '# Auth\n\nThe session token is not checked.\n'};

test('add, show, update, link, supersede and search', async (t) => {
  const {home, store} = await freshStore(t);
  const book = await ck.Notebook.open(store.view());
  assert.equal(book.root, path.join(home, 'notes-root'));
  const added = await book.add(auth);
  assert.match(added.path,
               /^code-reviewer\/\d{8}T\d{6}-auth-vulnerability\.md$/);
  assert.equal(added.file, path.join(book.root, added.path));
  assert.equal(added.key, `note:${added.path}`);
  assert.match(added.ref, /^ck:/);
  assert.match(readFileSync(added.file, 'utf8'), /^---\nagent: code-reviewer/);

  const note = await book.show(added.path);
  assert.equal(note.body, auth.body);
  assert.deepEqual(note.frontmatter.tags, ['security']);
  assert.equal(note.frontmatter.type, 'finding');
  assert.deepEqual(note.problems, []);

  const updated = await book.update(added.path, {
    agent: 'fixer', message: 'token check added', body: '# Auth\n\nFixed.\n'});
  assert.notEqual(updated.ref, added.ref);
  const after = await book.show(added.path);
  assert.match(after.body, /^# Auth\n\nFixed\.\n/);
  assert.match(after.body, /## Changelog\n+- \S+ \[fixer\]: token check added/);

  const fix = await book.add({agent: 'fixer', sessionId: 'run-1',
                              type: 'decision', slug: 'check tokens',
                              body: 'Every request checks its token.\n',
                              links: [added.path]});
  assert.match(fix.path, /^fixer\/run-1\//);
  const [newer, older] = await book.supersede(added.path, fix.path,
                                              {agent: 'fixer'});
  assert.equal(newer.path, fix.path);
  assert.equal(older.path, added.path);
  assert.match((await book.show(added.path)).body, /superseded, see/);
  const linked = await book.add({agent: 'fixer', slug: 'follow up',
                                 body: 'Later.\n'});
  await book.link(linked.path, added.path, {agent: 'fixer'});
  assert.deepEqual((await book.show(linked.path)).frontmatter.links,
                   [added.path]);

  const hits = await book.search({text: 'tokens'});
  assert.deepEqual(hits.map((h) => h.path).sort(),
                   [added.path, fix.path].sort());
  assert.ok(hits.every((h) => h.score > 0 && h.snippet.length > 0));
  const decisions = await book.search({type: 'decision', session: 'run-1'});
  assert.deepEqual(decisions.map((h) => h.path), [fix.path]);
  assert.equal(decisions[0].session_id, 'run-1');
  assert.deepEqual((await book.search({tags: ['security']})).map((h) => h.path),
                   [added.path]);
  assert.equal((await book.search({agent: 'fixer', limit: 1})).length, 1);

  const scan = await book.scan({full: true});
  assert.equal(scan.notes_total, 3);
  const gc = await book.gc({olderThanSeconds: 3600});
  assert.deepEqual(gc, {applied: false, expired: [], kept: 3});
  assert.deepEqual(await book.gc(), {applied: false, expired: [], kept: 3});
});

test('bad input is refused', async (t) => {
  const {store} = await freshStore(t);
  const book = await ck.Notebook.open(store.view());
  await assert.rejects(book.add({...auth, agent: '../etc'}),
                       {name: 'CtxkitError', code: 'invalid_argument'});
  await assert.rejects(book.add({...auth, type: 'opinion'}),
                       {code: 'invalid_argument'});
  await assert.rejects(book.show('code-reviewer/missing.md'),
                       {code: 'not_found'});
  await assert.rejects(book.show('../outside.md'), {code: 'invalid_argument'});
  await assert.rejects(book.update('code-reviewer/missing.md',
                                   {agent: 'a', message: 'm'}),
                       {code: 'not_found'});
  assert.throws(() => book.add({agent: 'a', slug: 's'}), TypeError);
  assert.throws(() => book.add({...auth, tags: 'security'}), TypeError);
  assert.throws(() => book.show(42), TypeError);
  assert.throws(() => book.update('p', {agent: 'a'}), /options.message/);
  assert.throws(() => ck.Notebook.open({}), TypeError);
});

test('a note written from Node is found and shown by the CLI', async (t) => {
  const {home, store} = await freshStore(t);
  const book = await ck.Notebook.open(store.view());
  const added = await book.add(auth);
  const hits = cliJson(home, ['notes', 'search', 'token']);
  assert.deepEqual(hits.map((h) => h.path), [added.path]);
  assert.deepEqual(hits, await book.search({text: 'token'}));
  assert.deepEqual(cliJson(home, ['notes', 'show', added.path]),
                   await book.show(added.path));
  // And the other way, under an explicit root.
  const root = path.join(home, 'elsewhere');
  const other = await ck.Notebook.open(store.view(), {root});
  execFileSync(ctxkitBinary, ['notes', 'add', '--root', root, '--agent', 'cli',
                              '--type', 'reference',
                              '--slug', 'from the cli'],
               {env: cliEnv(home), input: 'Written by the CLI.\n'});
  const [hit] = await other.search({text: 'written'});
  assert.equal(hit.agent, 'cli');
  assert.ok(existsSync(hit.file));
});

test('the execution log reads as `ctxkit log --json` prints it',
     async (t) => {
  const {home, store} = await freshStore(t);
  assert.deepEqual(await store.executionLog(), []);
  const slugs = Array.from({length: 19}, (_, i) => `early ${i}`);
  for (const slug of [...slugs, 'first', 'second', 'third']) {
    execFileSync(ctxkitBinary,
                 ['notes', 'add', '--agent', 'planner', '--type', 'finding',
                  '--slug', slug],
                 {env: cliEnv(home), input: `# ${slug}\n`});
  }
  // 22 entries: without a limit, every face shows the library's default 20.
  const recent = await store.executionLog();
  assert.equal(recent.length, 20);
  assert.deepEqual(recent, cliJson(home, ['log']));
  const all = await store.executionLog({limit: 100});
  assert.equal(all.length, 22);
  assert.deepEqual(recent, all.slice(2));
  assert.equal(all[0].command, 'notes add');
  assert.equal(all[0].status, 'ok');
  assert.equal(all[0].agent, 'planner');
  assert.match(all[21].meta.contextFiles[0], /third\.md$/);
  const last = await store.executionLog({limit: 2});
  assert.deepEqual(last, all.slice(20));
  assert.deepEqual(last, cliJson(home, ['log', '--limit', '2']));
  assert.throws(() => store.executionLog({limit: -1}), TypeError);
});
