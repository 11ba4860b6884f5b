// ToolOutputCapture from Node: outputs saved in memory and as files, loaded,
// listed, selected and cleared, errors, and captures shared with the CLI.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import {ck, ctxkitBinary, freshStore} from './helpers.mjs';

const bigLog = 'api: boot ok\n'.repeat(3000) + 'ERROR: disk full on /var\n';

async function capture(t, options) {
  const {home, store} = await freshStore(t);
  const view = store.view({agent: 'sre', session: 'run-1'});
  return {home, store, view,
          cap: await ck.ToolOutputCapture.open(view, options)};
}

test('save, load, list, select and clear', async (t) => {
  const {home, cap} = await capture(t);
  assert.equal(cap.sessionId, 'run-1');
  assert.equal(cap.root, path.join(home, 'tool-outputs'));
  const small = await cap.save('search_code', {query: 'TODO'},
                               {hits: ['a.c:3 TODO: retry']},
                               {taskId: 'task-7', queryId: 'q1'});
  assert.equal(small.in_memory, true);
  assert.equal(small.pointer, small.ref);
  const big = await cap.save('read_logs', '{"service":"api"}',
                             JSON.stringify(bigLog));
  assert.equal(big.in_memory, false);
  assert.match(path.basename(big.pointer),
               /^session-run-1-read_logs-[0-9a-f]{12}\.json$/);
  const file = JSON.parse(readFileSync(big.pointer, 'utf8'));
  assert.equal(file.toolName, 'read_logs');
  assert.equal(file.result, bigLog);

  const loaded = await cap.load(small.pointer);
  assert.deepEqual(loaded.args, {query: 'TODO'});
  assert.deepEqual(loaded.result, {hits: ['a.c:3 TODO: retry']});
  assert.equal(loaded.task_id, 'task-7');
  assert.equal(loaded.query_id, 'q1');
  assert.equal(loaded.session_id, 'run-1');
  assert.equal((await cap.load(big.pointer)).result, bigLog);

  const list = await cap.list();
  assert.deepEqual(list.map((p) => p.tool_name), ['search_code', 'read_logs']);
  assert.deepEqual(await cap.list('run-1'), list);
  assert.deepEqual(await cap.list('other'), []);

  const sel = await cap.select('disk full on /var', undefined,
                               {maxSelected: 1});
  assert.equal(sel.method, 'bm25');
  assert.equal(sel.candidates, 2);
  assert.equal(sel.selected.length, 1);
  assert.equal(sel.selected[0].pointer, big.pointer);
  assert.equal(sel.selected[0].output.result, bigLog);
  const chosen = await cap.select('TODO', [list[0], big.pointer]);
  assert.equal(chosen.candidates, 2);
  assert.equal(chosen.selected[0].pointer, small.pointer);

  assert.equal(await cap.clear(), 1);
  assert.equal(existsSync(big.pointer), false);
  await assert.rejects(cap.load(big.pointer), {code: 'not_found'});
});

test('bad input is refused', async (t) => {
  const {store, cap} = await capture(t);
  await assert.rejects(ck.ToolOutputCapture.open(store.view()),
                       {name: 'CtxkitError', code: 'invalid_argument'});
  await assert.rejects(cap.save('', {}, 1),
                       {code: 'invalid_argument'});
  await assert.rejects(cap.save('t', '[1]', 1), {code: 'invalid_argument'});
  await assert.rejects(cap.save('t', {}, '{not json'),
                       {code: 'invalid_argument'});
  await assert.rejects(cap.load('not a pointer'), {code: 'invalid_argument'});
  assert.throws(() => cap.save('t', {}), TypeError);
  assert.throws(() => cap.save(1, {}, 1), TypeError);
  assert.throws(() => cap.select('q', 'not an array'), TypeError);
  assert.throws(() => cap.select('q', undefined, {llm: 'x'}), TypeError);
  assert.throws(() => ck.ToolOutputCapture.open('view'), TypeError);
});

test('an output saved from Node is listed and loaded by the CLI',
     async (t) => {
  const {home, cap} = await capture(t);
  const small = await cap.save('search_code', {query: 'TODO'}, {n: 1});
  const big = await cap.save('read_logs', {}, JSON.stringify(bigLog));
  const env = {...process.env, CTXKIT_HOME: home};
  delete env.CTXKIT_TOOL_CONTEXT_DIR;
  const cli = (args) => JSON.parse(execFileSync(
      ctxkitBinary, ['--json', '--agent', 'sre', '--session', 'run-1',
                     'tools', ...args], {env}).toString());
  assert.deepEqual(cli(['ls']), await cap.list());
  assert.deepEqual(cli(['load', small.pointer]), await cap.load(small.pointer));
  assert.deepEqual(cli(['load', big.pointer]), await cap.load(big.pointer));
});
