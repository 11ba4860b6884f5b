// Store and View from Node: values in and out as strings and Buffers,
// metadata, listing, versions, the explore helpers, errors as CtxkitError
// with a code, wrong argument types as TypeError, and a store shared with
// the CLI.
import assert from 'node:assert/strict';
import {execFileSync, spawn, spawnSync} from 'node:child_process';
import {once} from 'node:events';
import test from 'node:test';

import {ck, ctxkitBinary, freshStore, pythonDir} from './helpers.mjs';

test('values round-trip as text and bytes, by key and by ref', async (t) => {
  const {store} = await freshStore(t);
  const view = store.view();
  const ref = await view.set('notes/a', 'hello\nworld\n');
  assert.match(ref, /^ck:/);
  assert.equal(await view.getText('notes/a'), 'hello\nworld\n');
  assert.deepEqual(await view.get(ref), Buffer.from('hello\nworld\n'));
  const bytes = Buffer.from([0, 255, 1, 254]);
  const bin = await view.set('blob', bytes);
  assert.deepEqual(await view.resolve(bin), bytes);
  assert.deepEqual(await view.readRange(bin, {offset: 1, length: 2}),
                   Buffer.from([255, 1]));
  // Versions and static refs.
  await view.set('notes/a', 'second\n');
  assert.equal(await view.getText('notes/a', {version: 1}), 'hello\nworld\n');
  const pinned = await view.pin('notes/a');
  assert.equal((await view.resolve(pinned)).toString(), 'second\n');
  const versions = await view.versions('notes/a');
  assert.deepEqual(versions.map((v) => v.version), [1, 2]);
  const meta = await view.stat('notes/a');
  assert.equal(meta.key, 'notes/a');
  assert.equal(meta.version, 2);
  assert.equal(meta.size_bytes, 7);
  assert.equal(await view.countTokens('notes/a'), 2);
});

test('setMany writes every pair in one commit, or none', async (t) => {
  const {store} = await freshStore(t);
  const view = store.view();
  const refs = await view.setMany(
      [['many/a', 'one'], ['many/b', Buffer.from('two')], ['many/a', 'three']],
      {type: 'text', tags: ['batch']});
  assert.equal(refs.length, 3);
  assert.equal(await view.getText(refs[0]), 'one');
  assert.equal(await view.getText(refs[1]), 'two');
  assert.equal(await view.getText('many/a'), 'three');  // The later item.
  assert.deepEqual((await view.stat('many/b')).tags, ['batch']);
  // A bad item fails the batch: nothing of it is written.
  await assert.rejects(view.setMany([['many/c', 'x'], ['', 'empty key']]),
                       {code: 'invalid_argument'});
  await assert.rejects(view.getText('many/c'), {code: 'not_found'});
  assert.throws(() => view.setMany('many/d'),
                {name: 'TypeError', message: /items must be an array/});
  assert.throws(() => view.setMany([['many/d']]),
                {name: 'TypeError', message: /items\[0\] must be a \[key, value\] pair/});
  assert.throws(() => view.setMany([['many/d', 5]]),
                {name: 'TypeError', message: /items\[0\]\[1\] \(the value\) must be a string/});
});

test('append grows a stream version by version', async (t) => {
  const {store} = await freshStore(t);
  const view = store.view();
  const first = await view.append('events', 'a\n');
  await view.append('events', Buffer.from('b\n'));
  assert.equal(await view.getText('events'), 'a\nb\n');
  assert.equal(await view.getText(first), 'a\n');
  const meta = await view.stat('events');
  assert.equal(meta.type, 'stream');
  assert.equal(meta.version, 2);
  await assert.rejects(view.append('events', 'c\n', {expectedVersion: 1}),
                       {code: 'failed_precondition'});
  await view.append('events', 'c\n', {expectedVersion: 2});
  assert.equal(await view.getText('events'), 'a\nb\nc\n');
  await view.set('plain', 'text');
  await assert.rejects(view.append('plain', 'x'),
                       {code: 'failed_precondition'});
  assert.throws(() => view.append('events', 3), TypeError);
});

test('list pages and remove', async (t) => {
  const {store} = await freshStore(t);
  const view = store.view();
  for (const k of ['p/1', 'p/2', 'p/3', 'q/1']) await view.set(k, k);
  const page = await view.list({keyPrefix: 'p/', limit: 2});
  assert.deepEqual(page.items.map((m) => m.key), ['p/1', 'p/2']);
  assert.notEqual(page.next_cursor, '');
  const rest = await view.list({keyPrefix: 'p/', cursor: page.next_cursor});
  assert.deepEqual(rest.items.map((m) => m.key), ['p/3']);
  assert.equal(rest.next_cursor, '');
  await view.remove('p/1');
  await assert.rejects(view.get('p/1'), {name: 'CtxkitError', code: 'not_found'});
  const stats = await store.stats();
  assert.ok(stats.objects >= 4);
});

test('explore helpers: peek, search, len, summarize, findRelevant',
     async (t) => {
  const {store} = await freshStore(t);
  const view = store.view();
  const lines = [];
  for (let i = 1; i <= 200; i++) lines.push(`line ${i}: ok`);
  lines[149] = 'line 150: ERROR disk full on /var';
  await view.set('logs/build', lines.join('\n') + '\n');
  const peek = await view.peek('logs/build', {start: 0, end: 2});
  assert.equal(peek.text, 'line 1: ok\nline 2: ok\n');
  assert.equal(peek.unit, 'lines');
  const found = await view.search('ERROR', {keys: ['logs/build']});
  assert.equal(found.matches.length, 1);
  assert.equal(found.matches[0].line, 150);
  const len = await view.len('logs/build', {count: true});
  assert.equal(len.lines, 200);
  const summary = await view.summarize('logs/build', {maxTokens: 60});
  assert.ok(summary.tokens <= 60);
  assert.ok(summary.text.length > 0);
  const hits = await view.findRelevant('disk full', {topK: 1});
  assert.equal(hits.hits.length, 1);
  assert.equal(hits.hits[0].key, 'logs/build');
});

test('errors are CtxkitError with a code; bad arguments are TypeError',
     async (t) => {
  const {store} = await freshStore(t);
  const view = store.view();
  await assert.rejects(view.get('missing'), (e) => {
    assert.ok(e instanceof ck.CtxkitError);
    assert.equal(e.code, 'not_found');
    assert.match(e.message, /no key 'missing'/);
    return true;
  });
  await assert.rejects(view.set('', 'x'), {code: 'invalid_argument'});
  await assert.rejects(view.resolve('ck:not-a-ref'), {code: 'invalid_argument'});
  assert.throws(() => view.set('k', 42), TypeError);
  assert.throws(() => view.get(7), /target must be a string/);
  assert.throws(() => view.list({limit: 'ten'}), /options.limit/);
  // A value the library refuses, found by the binding or the library,
  // rejects the same way.
  await assert.rejects(view.set('k', 'v', {type: 'nope'}), {
    name: 'CtxkitError', code: 'invalid_argument'});
  await assert.rejects(ck.Store.open({durability: 'sometimes'}), {
    code: 'invalid_argument',
    message: "durability must be 'full' or 'process', not 'sometimes'"});
  assert.throws(() => new ck.Store({}), TypeError);
});

test('calls run off the event loop, many at once', async (t) => {
  const {store} = await freshStore(t);
  const view = store.view();
  const refs = await Promise.all(
      Array.from({length: 50}, (_, i) => view.set(`many/${i}`, `v${i}`)));
  assert.equal(new Set(refs).size, 50);
  const texts = await Promise.all(
      Array.from({length: 50}, (_, i) => view.getText(`many/${i}`)));
  assert.deepEqual(texts, Array.from({length: 50}, (_, i) => `v${i}`));
});

test('a cached get answers while a write waits for the lock, never stale',
     async (t) => {
  const {home, store} = await freshStore(t);
  const view = store.view();
  await view.set('cached', 'in memory');
  // Another process holds SQLite's write lock: this store's next write
  // waits for it on a worker thread, holding the engine.
  const holder = spawn('/usr/bin/python3', ['-c', [
    'import sqlite3, sys',
    `db = sqlite3.connect(${JSON.stringify(home + '/ctxkit.db')},` +
        ' isolation_level=None)',
    'db.execute("BEGIN IMMEDIATE")',
    'print("locked", flush=True)',
    'sys.stdin.read()',
    'db.execute("ROLLBACK")',
  ].join('\n')], {stdio: ['pipe', 'pipe', 'inherit']});
  t.after(() => holder.kill());
  await once(holder.stdout, 'data');
  const waiting = view.set('other', 'waits for the lock');
  await new Promise((resolve) => setTimeout(resolve, 200));
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), 5000);
  });
  assert.equal(await Promise.race([view.getText('cached'), timeout]),
               'in memory');
  clearTimeout(timer);
  holder.stdin.end();
  await waiting;
  // A second instance replaces and then removes the value: the first one
  // never answers with what it cached.
  const second = await ck.Store.open({home});
  await second.view().set('cached', 'replaced');
  assert.equal(await view.getText('cached'), 'replaced');
  await second.view().remove('cached');
  await assert.rejects(view.getText('cached'), {code: 'not_found'});
});

test('a store written from Node is read by the CLI, and back', async (t) => {
  const {home, store} = await freshStore(t);
  const view = store.view();
  const ref = await view.set('shared/x', 'from node');
  const env = {...process.env, CTXKIT_HOME: home};
  assert.equal(execFileSync(ctxkitBinary, ['get', 'shared/x'], {env}).toString(),
               'from node');
  assert.equal(execFileSync(ctxkitBinary, ['get', ref], {env}).toString(),
               'from node');
  execFileSync(ctxkitBinary, ['set', 'shared/y', 'from the cli'], {env});
  assert.equal(await view.getText('shared/y'), 'from the cli');
  // The same input, the same error.
  const cli = spawnSync(ctxkitBinary, ['--json', 'get', 'missing'], {env});
  const error = JSON.parse(cli.stderr.toString()).error;
  await assert.rejects(view.get('missing'),
                       {code: error.code, message: error.message});
});

test('a store written from Node is read by Python, and back', async (t) => {
  const {home, store} = await freshStore(t);
  const view = store.view();
  await view.set('shared/n', 'from node');
  const script = [
    'import json, sys, ctxkit',
    'view = ctxkit.Store(sys.argv[1]).view()',
    'print(view.get("shared/n").decode())',
    'view.set("shared/p", "from python")',
    'try:',
    '    view.get("missing")',
    'except ctxkit.Error as e:',
    '    print(json.dumps({"code": e.code, "message": str(e)}))',
  ].join('\n');
  const out = execFileSync('/usr/bin/python3', ['-c', script, home], {
    env: {...process.env, PYTHONPATH: pythonDir},
  }).toString().split('\n');
  assert.equal(out[0], 'from node');
  assert.equal(await view.getText('shared/p'), 'from python');
  // The same input, the same error.
  const error = JSON.parse(out[1]);
  await assert.rejects(view.get('missing'),
                       {code: error.code, message: error.message});
});
