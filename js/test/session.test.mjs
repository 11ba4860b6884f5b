// Session from Node: ingest a harness log, render within a budget with the
// agent tools, answer a model's tool call, replay, diff, pools, compaction
// on request, fork, and a session shared with the CLI.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import test from 'node:test';

import {ck, ctxkitBinary, freshStore, serviceLog, turn} from './helpers.mjs';

async function sessionWithTurns(t, turns, policy) {
  const {home, store} = await freshStore(t);
  const session = await ck.Session.create(store, 'agent', policy);
  const log = [{role: 'system', content: 'You are an SRE agent.'}];
  for (let n = 1; n <= turns; n++) {
    log.push(...turn(n, serviceLog(n, `Z0000${n}`)));
  }
  const report = await session.ingest(log);
  assert.equal(report.toolcalls_recorded, turns);
  return {home, store, session, log};
}

test('render within a budget, with the agent tools, replayed byte for byte',
     async (t) => {
  const {session} = await sessionWithTurns(t, 4);
  const r = await session.render({budget: 20000, tools: true});
  assert.ok(r.tokens <= 20000);
  assert.equal(r.record, 1);
  assert.deepEqual(Object.keys(r.request).sort(), ['messages', 'tools']);
  assert.deepEqual(r.request.messages, JSON.parse(r.request_json).messages);
  assert.ok(r.request.tools.some((tool) => tool.function.name === 'ctxkit_read'));
  const again = await session.replay(r.record);
  assert.equal(again.request_json, r.request_json);
  const plain = await session.render({budget: 20000, record: false});
  assert.equal(plain.record, 0);
  assert.equal(plain.request.tools, undefined);
  const snap = await session.snapshot();
  assert.equal(snap.renders, 1);
  assert.equal(snap.entries.filter((e) => e.kind === 'toolcall').length, 4);
});

test('a model reads a hidden output through the agent tools', async (t) => {
  const {session} = await sessionWithTurns(t, 3);
  const snap = await session.snapshot();
  const first = snap.entries.find((e) => e.key.endsWith('call_1'));
  await session.deactivate(first.ref);
  const r = await session.render({budget: 20000, tools: true});
  const placeholder = r.request.messages.find(
      (m) => m.tool_call_id === 'call_1').content;
  const handle = placeholder.match(/ctxkit_read (#\d+)\]/)[1];
  const answer = await session.call({
    id: 'c1', type: 'function',
    function: {name: 'ctxkit_search',
               arguments: JSON.stringify({pattern: 'deploy code', ref: handle})},
  });
  assert.equal(answer.role, 'tool');
  assert.equal(answer.tool_call_id, 'c1');
  assert.match(answer.content, /deploy code Z00001 accepted/);
  // Anthropic's shape is answered in Anthropic's shape.
  const anthropic = await session.call({
    type: 'tool_use', id: 'tu1', name: 'ctxkit_read',
    input: {ref: handle, start_line: 7, end_line: 7}});
  assert.equal(anthropic.type, 'tool_result');
  assert.match(anthropic.content, /Z00001/);
  assert.equal(ck.Session.tools('anthropic').length, 8);
  assert.ok(ck.isAgentTool('ctxkit_read'));
  assert.ok(!ck.isAgentTool('read_logs'));
  await assert.rejects(session.call({id: 'x', type: 'function',
                                     function: {name: 'read_logs',
                                                arguments: '{}'}}),
                       {code: 'invalid_argument'});
});

test('append, diff, compaction on request, expand', async (t) => {
  const {session} = await sessionWithTurns(t, 3);
  const r1 = await session.render({budget: 50000});
  await session.ingest(turn(4, serviceLog(4, 'Z00004')), {append: true});
  await session.requestCompaction('keep the deploy codes');
  const r2 = await session.render({budget: 50000});
  assert.ok(r2.compacted);
  const diff = await session.diff(r1.record, r2.record);
  assert.equal(diff.from, r1.record);
  assert.ok(diff.compacted.length === 1);
  const expanded = await session.expand(r2.compacted.ref);
  assert.match(expanded, /Question 1\?/);
  await assert.rejects(session.requestCompaction('x'.repeat(2001)),
                       {code: 'invalid_argument'});
});

test('fork starts from what a recorded render showed', async (t) => {
  const {session} = await sessionWithTurns(t, 2);
  const r1 = await session.render({budget: 50000});
  await session.ingest(turn(3, serviceLog(3, 'Z00003')), {append: true});
  const child = await session.fork(r1.record, 'branch');
  assert.equal(child.id, 'branch');
  const first = await child.render({budget: 50000});
  assert.equal(first.request_json, r1.request_json);
  assert.equal((await session.snapshot()).chat_messages, 12);
  assert.equal((await child.snapshot()).chat_messages, 8);
  await assert.rejects(session.fork(99, 'other'), {code: 'not_found'});
});

test('sessions are shared with the CLI; bad input is refused', async (t) => {
  const {home, store, session} = await sessionWithTurns(t, 2);
  const r = await session.render({budget: 50000});
  const env = {...process.env, CTXKIT_HOME: home};
  const cli = execFileSync(
      ctxkitBinary, ['render', 'agent', '--at', String(r.record),
                     '--request-only'], {env}).toString();
  assert.equal(cli, r.request_json);
  assert.deepEqual(await ck.Session.list(store), ['agent']);
  await assert.rejects(ck.Session.create(store, 'agent'),
                       {code: 'already_exists'});
  await assert.rejects(ck.Session.open(store, 'nope'), {code: 'not_found'});
  await assert.rejects(ck.Session.create(store, 'bad id!'),
                       {code: 'invalid_argument'});
  await assert.rejects(ck.Session.create(store, 'p', {compactTargetPercent: 0}),
                       {code: 'invalid_argument'});
  await assert.rejects(session.ingest('{not json'), {code: 'invalid_argument'});
  assert.throws(() => session.render({}), /options.budget/);
  assert.throws(() => session.replay(1.5), /record must be a non-negative/);
  assert.throws(() => session.activate('#2', 'one'),
                /version must be a non-negative integer/);
  await assert.rejects(session.render({budget: 10, format: 'xml'}),
                       {code: 'invalid_argument'});
  assert.throws(() => ck.Session.tools('xml'), {code: 'invalid_argument'});
  assert.equal(await ck.Session.remove(store, 'agent') > 0, true);
});

test('policy options reach the session', async (t) => {
  const {session} = await sessionWithTurns(
      t, 4, {keepToolOutputs: 1, collapseAtIngestion: true,
             cacheTtlSeconds: 60});
  const snap = await session.snapshot();
  assert.equal(snap.policy.keep_tool_outputs, 1);
  assert.equal(snap.policy.collapse_at_ingestion, true);
  assert.equal(snap.policy.cache_ttl_seconds, 60);
  assert.equal(snap.entries.filter((e) => e.collapsed).length, 3);
});
