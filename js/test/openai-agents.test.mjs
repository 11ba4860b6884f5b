// ctxkit/openai-agents against @openai/agents: the Session round-trips the
// SDK's items through the store, a real Runner.run with a scripted model
// continues a conversation (also in another process), and with
// modelInputFilter the model receives ctxkit's render within the budget
// while the session keeps every item whole.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import path from 'node:path';
import test from 'node:test';
import {fileURLToPath} from 'node:url';

import {Agent, Runner, tool} from '@openai/agents';
import {ScriptedModel, assistantMessage, functionCall}
    from '@openai/agents/testing';
import {z} from 'zod';

import {ck, freshStore, packageDir, serviceLog} from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const {CtxkitSession, toResponsesItem} =
    (await import(path.join(packageDir, 'openai-agents.js'))).default;

const runner = new Runner({tracingDisabled: true});

function sreAgent(model, extraTools = []) {
  const readLogs = tool({
    name: 'read_logs', description: 'Read a service log.',
    parameters: z.object({service: z.string()}),
    execute: async ({service}) => serviceLog(service, 'Z00042', 120),
  });
  return new Agent({name: 'sre', instructions: 'You are an SRE agent.',
                    model, tools: [readLogs, ...extraTools]});
}

test('items round-trip exactly; limit, pop and clear', async (t) => {
  const {store} = await freshStore(t);
  const session = new CtxkitSession({store, sessionId: 'chat-1'});
  assert.equal(await session.getSessionId(), 'chat-1');
  assert.deepEqual(await session.getItems(), []);
  assert.equal(await session.popItem(), undefined);
  const items = [
    {type: 'message', role: 'user', content: 'héllo\nworld'},
    {role: 'user', content: [{type: 'input_text', text: 'a'},
                             {type: 'input_image', image: 'https://x/y.png',
                              detail: 'auto'}]},
    {type: 'function_call', callId: 'call_1', name: 'f', arguments: '{}',
     status: 'completed', providerData: {raw: [1, null, 'x']}},
    {type: 'function_call_result', callId: 'call_1', name: 'f',
     status: 'completed',
     output: {type: 'image', image: {data: new Uint8Array([0, 255, 7]),
                                     mediaType: 'image/png'}}},
    {type: 'reasoning', id: 'rs_1', content: [], providerData: undefined},
  ];
  await session.addItems(items.slice(0, 2));
  await session.addItems(items.slice(2));
  await session.addItems([]);
  assert.deepStrictEqual(await session.getItems(), items);
  assert.deepStrictEqual(await session.getItems(2), items.slice(3));
  assert.deepStrictEqual(await session.getItems(0), []);
  // Another instance over the same store sees the same items.
  const again = new CtxkitSession({store, sessionId: 'chat-1'});
  assert.deepStrictEqual(await again.getItems(), items);
  assert.deepStrictEqual(await again.popItem(), items[4]);
  assert.deepStrictEqual(await session.getItems(), items.slice(0, 4));
  await session.addItems([items[4]]);
  assert.deepStrictEqual(await session.getItems(), items);
  await session.clearSession();
  assert.deepStrictEqual(await again.getItems(), []);
  await session.addItems([items[0]]);
  assert.deepStrictEqual(await again.getItems(), [items[0]]);
  // Each session is its own stream.
  const other = new CtxkitSession({store});
  assert.match(await other.getSessionId(), /^[0-9a-f-]{36}$/);
  assert.deepStrictEqual(await other.getItems(), []);
  assert.throws(() => new CtxkitSession({}), TypeError);
  assert.throws(() => session.modelInputFilter({budget: 0}), TypeError);
});

test('items map to Responses input items', () => {
  assert.deepEqual(toResponsesItem({role: 'user', content: [
    {type: 'input_text', text: 'see '}, {type: 'input_file', filename: 'a.pdf'}]}),
  {type: 'message', role: 'user', content: 'see [input_file a.pdf]'});
  assert.deepEqual(toResponsesItem({type: 'function_call_result', callId: 'c',
                                    name: 'f', status: 'completed',
                                    output: {type: 'text', text: 'out'}}),
                   {type: 'function_call_output', call_id: 'c', output: 'out'});
  const hosted = {type: 'hosted_tool_call', name: 'web_search', id: 'ws_1'};
  assert.equal(toResponsesItem(hosted), hosted);
});

test('Runner.run continues a conversation held by the session',
     async (t) => {
  const {store} = await freshStore(t);
  const session = new CtxkitSession({store, sessionId: 'sre-1'});
  const model = new ScriptedModel([
    [functionCall('read_logs', {service: 'api'}, {callId: 'call_1'})],
    [assistantMessage('Deploy code Z00042 was accepted.')],
    [assistantMessage('It was the api service.')],
  ]);
  const agent = sreAgent(model);
  const first = await runner.run(agent, 'Which deploy code?', {session});
  assert.equal(first.finalOutput, 'Deploy code Z00042 was accepted.');
  const stored = await session.getItems();
  assert.deepEqual(stored.map((i) => i.type), [
    'message', 'function_call', 'function_call_result', 'message']);
  const second = await runner.run(agent, 'Which service?', {session});
  assert.equal(second.finalOutput, 'It was the api service.');
  // The model got the whole history back from the store.
  const input = model.lastCall.request.input;
  assert.deepEqual(input.slice(0, 4).map((i) => i.type), stored.map((i) => i.type));
  assert.equal(input[2].output.text, serviceLog('api', 'Z00042', 120));
  assert.equal((await session.getItems()).length, 6);
  model.assertComplete();
});

test('with modelInputFilter the model gets the render; the session keeps '
     + 'the items whole; the agent tools read what is hidden', async (t) => {
  const {store} = await freshStore(t);
  const session = new CtxkitSession({store, sessionId: 'sre-2'});
  const renders = [];
  const ingests = [];
  const callModelInputFilter = session.modelInputFilter({
    budget: 2500, tools: true,
    onRender: (r, ingest) => { renders.push(r); ingests.push(ingest); }});
  const model = new ScriptedModel([
    [functionCall('read_logs', {service: 'api'}, {callId: 'call_1'})],
    [assistantMessage('Read it.')],
    [functionCall('read_logs', {service: 'db'}, {callId: 'call_2'})],
    [functionCall('read_logs', {service: 'web'}, {callId: 'call_3'})],
    [functionCall('ctxkit_search', {pattern: 'deploy code', ref: '#2'},
                  {callId: 'call_4'})],
    [assistantMessage('Z00042.')],
  ]);
  const agent = sreAgent(model, session.agentTools());
  await runner.run(agent, 'Read the api log.', {session, callModelInputFilter});
  const result = await runner.run(agent, 'Now db and web; which code?',
                                  {session, callModelInputFilter});
  assert.equal(result.finalOutput, 'Z00042.');
  assert.equal(renders.length, 6);
  for (const r of renders) assert.ok(r.tokens <= 2500, `${r.tokens}`);
  // Each model input continued the last: ingested incrementally.
  assert.deepEqual(ingests.map((i) => [i.messages_added, i.reset]),
                   [[1, false], [2, false], [2, false], [2, false],
                    [2, false], [2, false]]);
  const calls = model.calls.map((c) => c.request);
  assert.equal(calls[0].systemInstructions, 'You are an SRE agent.');
  assert.ok(calls[0].tools.some((tl) => tl.name === 'ctxkit_read'));
  // The last request: the api output (#2) hidden behind its handle, the
  // search answered from the store.
  const last = calls[5].input;
  const outputs = last.filter((i) => i.type === 'function_call_result');
  const api = outputs.find((o) => o.callId === 'call_1');
  assert.match(api.output, /ctxkit_read #2\]/);
  const search = outputs.find((o) => o.callId === 'call_4');
  assert.match(search.output, /deploy code Z00042 accepted/);
  // Unchanged items reach the model as the SDK stored them.
  assert.deepEqual(last[0], {type: 'message', role: 'user',
                             content: 'Read the api log.'});
  // The session holds every output whole.
  const items = await session.getItems();
  const stored = items.find((i) => i.callId === 'call_1' &&
                                   i.type === 'function_call_result');
  assert.equal(stored.output.text, serviceLog('api', 'Z00042', 120));
  const context = await session.contextSession();
  assert.equal(context.id, 'sre-2');
  assert.equal((await context.snapshot()).renders, 6);
  await session.clearSession();
  assert.deepEqual(await ck.Session.list(store), []);
});

test('a run in another process continues the session', async (t) => {
  const {home, store} = await freshStore(t);
  const session = new CtxkitSession({store, sessionId: 'restart'});
  const model = new ScriptedModel([[assistantMessage('First answer.')]]);
  await runner.run(sreAgent(model), 'First question?', {session});
  const out = execFileSync(process.execPath, [
    path.join(here, 'openai-agents-child.mjs'), home, 'restart'],
    {env: {...process.env, CTXKIT_NODE_PACKAGE: packageDir}}).toString();
  const child = JSON.parse(out);
  assert.equal(child.finalOutput, 'Second answer.');
  assert.deepEqual(child.modelInput.map((i) => i.role),
                   ['user', 'assistant', 'user']);
  assert.equal(child.modelInput[0].content, 'First question?');
  assert.deepEqual((await session.getItems()).map((i) => i.role),
                   ['user', 'assistant', 'user', 'assistant']);
});
