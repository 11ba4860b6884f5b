// ctxkit/ai-sdk against `ai`: generateText through wrapLanguageModel with
// ctxkitMiddleware sends the mock model ctxkit's render of the prompt
// within the budget (tool outputs behind refs and handles, the agent tools
// added), ctxkitTools answers the model's ctxkit_* calls, and the prompt
// is ingested incrementally.
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';

import {generateText, stepCountIs, tool, wrapLanguageModel} from 'ai';
import {MockLanguageModelV4} from 'ai/test';
import {z} from 'zod';

import {ck, freshStore, packageDir, serviceLog} from './helpers.mjs';

const {ctxkitMiddleware, ctxkitTools, toChatLog} =
    (await import(path.join(packageDir, 'ai-sdk.js'))).default;

const usage = {
  inputTokens: {total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0},
  outputTokens: {total: 1, text: 1, reasoning: 0},
};
const call = (id, toolName, input) => ({
  content: [{type: 'tool-call', toolCallId: id, toolName,
             input: JSON.stringify(input)}],
  finishReason: {unified: 'tool-calls', raw: undefined}, usage, warnings: []});
const text = (value) => ({
  content: [{type: 'text', text: value}],
  finishReason: {unified: 'stop', raw: undefined}, usage, warnings: []});

const readLogs = tool({
  description: 'Read a service log.',
  inputSchema: z.object({service: z.string()}),
  execute: async ({service}) => serviceLog(service, 'Z00042', 120),
});

test('generateText: the model gets the render within the budget and reads '
     + 'hidden outputs through the agent tools', async (t) => {
  const {store} = await freshStore(t);
  const session = await ck.Session.create(store, 'chat');
  const mock = new MockLanguageModelV4({doGenerate: [
    call('call_1', 'read_logs', {service: 'api'}),
    call('call_2', 'read_logs', {service: 'db'}),
    call('call_3', 'ctxkit_search', {pattern: 'deploy code', ref: '#2'}),
    text('Z00042.'),
  ]});
  const renders = [];
  const ingests = [];
  const model = wrapLanguageModel({model: mock, middleware: ctxkitMiddleware(
      {session, budget: 2500, tools: true,
       onRender: (r, ingest) => { renders.push(r); ingests.push(ingest); }})});
  const result = await generateText({
    model, system: 'You are an SRE agent.', prompt: 'Which deploy code?',
    tools: {read_logs: readLogs, ...ctxkitTools(session)},
    stopWhen: stepCountIs(6)});
  assert.equal(result.text, 'Z00042.');
  assert.equal(renders.length, 4);
  for (const r of renders) assert.ok(r.tokens <= 2500, `${r.tokens}`);
  const prompts = mock.doGenerateCalls.map((c) => c.prompt);
  assert.deepEqual(prompts[0].map((m) => m.role), ['system', 'user']);
  assert.equal(prompts[0][0].content, 'You are an SRE agent.');
  assert.deepEqual(prompts[0][1].content,
                   [{type: 'text', text: 'Which deploy code?'}]);
  // The last call: the api output behind its handle, the db output (the
  // newest but one) and the search result shown.
  const results = prompts[3].filter((m) => m.role === 'tool')
      .flatMap((m) => m.content);
  assert.deepEqual(results.map((p) => p.toolCallId),
                   ['call_1', 'call_2', 'call_3']);
  assert.deepEqual(results.map((p) => p.toolName),
                   ['read_logs', 'read_logs', 'ctxkit_search']);
  assert.match(results[0].output.value, /output hidden.*ctxkit_read #2\]/);
  assert.match(results[2].output.value, /svc-api: deploy code Z00042/);
  const calls = prompts[3].filter((m) => m.role === 'assistant')
      .flatMap((m) => m.content);
  assert.equal(calls[0].toolCallId, 'call_1');
  assert.deepEqual(calls[0].input, {service: 'api'});
  // The agent tools reach the model once, with their JSON Schemas.
  const tools = mock.doGenerateCalls[0].tools;
  assert.deepEqual(tools.map((tl) => tl.name).filter((n) => n === 'ctxkit_read'),
                   ['ctxkit_read']);
  const read = ck.Session.tools('openai').find(
      (tl) => tl.function.name === 'ctxkit_read');
  assert.deepEqual(tools.find((tl) => tl.name === 'ctxkit_read').inputSchema,
                   read.function.parameters);
  // The render's request carried the caller's read_logs too.
  assert.ok(renders[0].request.tools.some(
      (tl) => tl.function.name === 'read_logs'));
  // Each call's prompt continued the last: ingested incrementally.
  assert.deepEqual(ingests.map((i) => [i.messages_added, i.reset]),
                   [[1, false], [2, false], [2, false], [2, false]]);
  const snap = await session.snapshot();
  assert.equal(snap.chat_messages, 7);  // user, 3 x (call, output)
  assert.equal(snap.renders, 4);
});

test('without tools: no agent tools; a user file survives while shown',
     async (t) => {
  const {store} = await freshStore(t);
  const session = await ck.Session.create(store, 'files');
  const mock = new MockLanguageModelV4({doGenerate: [text('A cat.')]});
  const model = wrapLanguageModel({model: mock, middleware: ctxkitMiddleware(
      {session, budget: 4000})});
  const image = new Uint8Array([137, 80, 78, 71]);
  await generateText({model, messages: [{role: 'user', content: [
    {type: 'text', text: 'What is this?'},
    {type: 'file', data: image, mediaType: 'image/png'}]}]});
  const prompt = mock.doGenerateCalls[0].prompt;
  assert.equal(prompt.length, 1);
  assert.equal(prompt[0].content[1].type, 'file');
  assert.equal(mock.doGenerateCalls[0].tools, undefined);
  assert.throws(() => ctxkitMiddleware({session, budget: 0}), TypeError);
  assert.throws(() => ctxkitMiddleware({session: {}, budget: 10}), TypeError);
  assert.throws(() => ctxkitTools(null), TypeError);
});

test('prompt parts map to Chat Completions messages', () => {
  assert.deepEqual(toChatLog([
    {role: 'system', content: 'S'},
    {role: 'user', content: [{type: 'text', text: 'look: '},
                             {type: 'file', mediaType: 'image/png',
                              data: 'AA=='}]},
    {role: 'assistant', content: [
      {type: 'reasoning', text: 'hmm'}, {type: 'text', text: 'ok'},
      {type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {a: 1}}]},
    {role: 'tool', content: [
      {type: 'tool-result', toolCallId: 'c1', toolName: 'f',
       output: {type: 'json', value: {b: 2}}},
      {type: 'tool-result', toolCallId: 'c2', toolName: 'g',
       output: {type: 'error-text', value: 'boom'}}]},
  ]), [
    {role: 'system', content: 'S'},
    {role: 'user', content: 'look: [file image/png]'},
    {role: 'assistant', content: 'ok', tool_calls: [
      {id: 'c1', type: 'function', function: {name: 'f', arguments: '{"a":1}'}}]},
    {role: 'tool', tool_call_id: 'c1', content: '{"b":2}'},
    {role: 'tool', tool_call_id: 'c2', content: 'error: boom'},
  ]);
});
