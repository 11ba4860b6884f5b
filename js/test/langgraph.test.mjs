// ctxkit/langgraph: CtxkitSaver against LangGraph's checkpointer
// validation suite and a real StateGraph resumed by a new process, the key
// layout, CtxkitStore's batch operations, and langgraph.d.ts under strict
// TypeScript with LangGraph's own types.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync,
        writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import path from 'node:path';
import test from 'node:test';
import {fileURLToPath, pathToFileURL} from 'node:url';

import {ck, freshStore, packageDir} from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const checkout = path.resolve(here, '..', '..');
const {CtxkitSaver, CtxkitStore} =
    await import(pathToFileURL(path.join(packageDir, 'langgraph.mjs')).href);
const checkpoint = await import('@langchain/langgraph-checkpoint');

function node(args) {
  return execFileSync(process.execPath, args, {
    cwd: checkout, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    env: {...process.env, CTXKIT_NODE_PACKAGE: packageDir},
  });
}

test('LangGraph\'s checkpointer validation suite passes', () => {
  let out;
  try {
    out = node([path.join(here, 'langgraph', 'run_vitest.mjs'),
                path.join(here, 'langgraph', 'checkpoint_validation.vitest.mjs')]);
  } catch (e) {
    out = String(e.stdout);
  }
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, out.slice(-2000));
  const result = JSON.parse(line.slice('RESULT '.length));
  assert.deepEqual(result.failures, []);
  assert.equal(result.failed, 0);
  assert.equal(result.skipped, 0);
  assert.ok(result.passed >= 700, `only ${result.passed} cases ran`);
});

test('a StateGraph resumes its thread in a new process', (t) => {
  const home = mkdtempSync(path.join(tmpdir(), 'ctxkit-lg-graph-'));
  t.after(() => rmSync(home, {recursive: true, force: true}));
  const run = (phase) => JSON.parse(node(
      [path.join(here, 'langgraph', 'graph_process.mjs'), home, phase,
       'thread-1']).trim());
  const started = run('start');
  assert.deepEqual(started.next, ['approve']);
  assert.deepEqual(started.interrupts, [{question: 'clean /var?'}]);
  const resumed = run('resume');
  assert.deepEqual(resumed.before, started);
  assert.deepEqual(resumed.after.next, []);
  assert.deepEqual(resumed.after.messages.at(-1), ['ai', 'cleaned']);
  assert.ok(resumed.after.classes);
  // The same as LangGraph's in-memory saver in one process.
  assert.deepEqual(resumed, run('memory'));
});

function checkpointOf(id, values = {}) {
  return {v: 4, id, ts: new Date().toISOString(), channel_values: values,
          channel_versions: Object.fromEntries(
              Object.keys(values).map((k) => [k, 1])),
          versions_seen: {}};
}

test('checkpoints, writes and channel values are objects under the prefix',
     async (t) => {
  const {store} = await freshStore(t);
  const view = store.view();
  const saver = new CtxkitSaver(store, {prefix: 'lg'});
  const id = checkpoint.uuid6(-1);
  const config = await saver.put(
      {configurable: {thread_id: 'a/b%c', checkpoint_ns: ''}},
      checkpointOf(id, {notes: ['x']}), {source: 'input', step: -1, parents: {}},
      {notes: 1});
  await saver.putWrites(config, [['notes', ['y']]], 'task-1', '~a');
  const keys = (await view.list({keyPrefix: 'lg/'})).items.map((i) => i.key);
  assert.deepEqual(keys.sort(), [
    `lg/blobs/a%2Fb%25c/_/notes`,
    `lg/checkpoints/a%2Fb%25c/_/${id}`,
    `lg/writes/a%2Fb%25c/_/${id}/task-1`,
  ]);
  const tuple = await saver.getTuple({configurable: {thread_id: 'a/b%c'}});
  assert.deepEqual(tuple.checkpoint.channel_values, {notes: ['x']});
  assert.deepEqual(tuple.pendingWrites, [['task-1', 'notes', ['y']]]);

  // A second put of the channel is a new version of its blob; the first
  // checkpoint still reads its own.
  const id2 = checkpoint.uuid6(-1);
  await saver.put(config, checkpointOf(id2, {notes: ['x', 'y']}),
                  {source: 'loop', step: 0, parents: {}}, {notes: 2});
  assert.equal((await view.versions('lg/blobs/a%2Fb%25c/_/notes')).length, 2);
  assert.deepEqual((await saver.getTuple(config)).checkpoint.channel_values,
                   {notes: ['x']});
  const listed = [];
  for await (const c of saver.list({configurable: {thread_id: 'a/b%c'}})) {
    listed.push(c.checkpoint.id);
  }
  assert.deepEqual(listed, [id2, id]);

  // Another prefix is another saver's world; deleteThread removes a thread.
  const other = new CtxkitSaver(store.view());
  assert.equal(await other.getTuple(config), undefined);
  await other.put({configurable: {thread_id: 'keep'}}, checkpointOf(id), {},
                  {});
  await saver.deleteThread('a/b%c');
  assert.deepEqual((await view.list({keyPrefix: 'lg/'})).items, []);
  assert.ok(await other.getTuple({configurable: {thread_id: 'keep'}}));
});

test('an id too long for a store key is a clear invalid_argument',
     async (t) => {
  const {store} = await freshStore(t);
  const saver = new CtxkitSaver(store);
  await assert.rejects(
      saver.put({configurable: {thread_id: 't'.repeat(300)}},
                checkpointOf(checkpoint.uuid6(-1)), {}, {}),
      (e) => e instanceof ck.CtxkitError && e.code === 'invalid_argument' &&
             /would be \d+ bytes; ctxkit keys are at most 256/.test(e.message));
  await assert.rejects(
      saver.putWrites({configurable: {thread_id: 't'}}, [['c', 1]], 'task'),
      /checkpoint_id/);
  await assert.rejects(
      saver.put({configurable: {}}, checkpointOf('x'), {}, {}), /thread_id/);
});

test('CtxkitStore: get, put, delete, search by query and filter, namespaces',
     async (t) => {
  const {store} = await freshStore(t);
  const memory = new CtxkitStore(store);
  await memory.put(['users', 'u1', 'facts'], 'disk',
                   {text: 'the disk on /var filled up', kind: 'incident'});
  await memory.put(['users', 'u1', 'facts'], 'deploy',
                   {text: 'deploys run on fridays', kind: 'process'});
  await memory.put(['users', 'u2', 'facts'], 'disk',
                   {text: 'disk quotas are per team', kind: 'policy'});
  await memory.put(['users', 'u1', 'prefs'], 'theme', {theme: 'dark'});

  const item = await memory.get(['users', 'u1', 'facts'], 'disk');
  assert.equal(item.value.kind, 'incident');
  assert.deepEqual(item.namespace, ['users', 'u1', 'facts']);
  assert.ok(item.createdAt instanceof Date);
  await memory.put(['users', 'u1', 'facts'], 'disk',
                   {text: 'the disk on /var filled up again', kind: 'incident'});
  const updated = await memory.get(['users', 'u1', 'facts'], 'disk');
  assert.equal(updated.createdAt.getTime(), item.createdAt.getTime());
  assert.ok(updated.updatedAt >= item.updatedAt);
  assert.equal(await memory.get(['users', 'u1', 'facts'], 'none'), null);

  const hits = await memory.search(['users', 'u1'], {query: 'disk filled'});
  assert.equal(hits[0].key, 'disk');
  assert.deepEqual(hits[0].namespace, ['users', 'u1', 'facts']);
  assert.equal(typeof hits[0].score, 'number');
  assert.ok(hits.every((h) => h.namespace[1] === 'u1'));
  const everyone = await memory.search(['users'], {query: 'disk'});
  assert.deepEqual(everyone.map((h) => h.namespace[1]).sort(), ['u1', 'u2']);
  const filtered = await memory.search(['users'],
                                       {filter: {kind: {$in: ['policy']}}});
  assert.deepEqual(filtered.map((h) => [h.namespace[1], h.key]),
                   [['u2', 'disk']]);
  const paged = await memory.search(['users'], {limit: 2, offset: 1});
  assert.equal(paged.length, 2);

  assert.deepEqual(await memory.listNamespaces({prefix: ['users', 'u1']}),
                   [['users', 'u1', 'facts'], ['users', 'u1', 'prefs']]);
  assert.deepEqual(await memory.listNamespaces({suffix: ['facts']}),
                   [['users', 'u1', 'facts'], ['users', 'u2', 'facts']]);
  assert.deepEqual(await memory.listNamespaces({maxDepth: 2}),
                   [['users', 'u1'], ['users', 'u2']]);
  assert.deepEqual(await memory.listNamespaces({prefix: ['users', '*', 'prefs'],
                                                limit: 1}),
                   [['users', 'u1', 'prefs']]);

  const [got, found, names] = await memory.batch([
    {namespace: ['users', 'u1', 'prefs'], key: 'theme'},
    {namespacePrefix: ['users', 'u2'], query: 'quotas', limit: 1},
    {maxDepth: 1, limit: 10, offset: 0},
    {namespace: ['users', 'u1', 'prefs'], key: 'theme', value: null},
  ]);
  assert.equal(got.value.theme, 'dark');
  assert.equal(found[0].key, 'disk');
  assert.deepEqual(names, [['users']]);
  assert.equal(await memory.get(['users', 'u1', 'prefs'], 'theme'), null);
});

test('langgraph.d.ts compiles under strict TypeScript with LangGraph\'s types',
     (t) => {
  // An app importing ctxkit/langgraph as an ES module (the .d.mts), beside
  // LangGraph. skipLibCheck: LangChain's declarations do not pass
  // exactOptionalPropertyTypes (and checking them takes seconds); ours are
  // checked through their use, where CtxkitSaver must be a
  // BaseCheckpointSaver that compile() takes, member by member.
  const require = createRequire(import.meta.url);
  const ts = require(path.join(checkout, 'node_modules', 'typescript'));
  const app = mkdtempSync(path.join(tmpdir(), 'ctxkit-lg-types-'));
  t.after(() => rmSync(app, {recursive: true, force: true}));
  mkdirSync(path.join(app, 'node_modules'));
  symlinkSync(packageDir, path.join(app, 'node_modules', 'ctxkit'), 'dir');
  for (const scope of ['@langchain', '@types']) {
    symlinkSync(path.join(checkout, 'node_modules', scope),
                path.join(app, 'node_modules', scope), 'dir');
  }
  const usage = path.join(app, 'usage.mts');
  copyFileSync(path.join(here, 'types', 'langgraph_usage.mts'), usage);
  writeFileSync(path.join(app, 'package.json'), '{"type": "module"}\n');
  const program = ts.createProgram([usage], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16,
    types: ['node'], exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true, skipLibCheck: true,
  });
  const ours = ts.getPreEmitDiagnostics(program).filter(
      (d) => !d.file || !d.file.fileName.includes('/node_modules/'));
  const text = ours.map((d) => ts.flattenDiagnosticMessageText(
      d.messageText, '\n')).join('\n');
  assert.equal(ours.length, 0, text);
  assert.ok(program.getSourceFiles().some(
      (f) => f.fileName.endsWith('langgraph.d.mts')));
});
