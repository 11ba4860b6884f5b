// Calls every tool a ctxkit MCP server lists, reads resources (text and
// binary), the key@version template and the root prompt, through an
// official SDK Client that is already connected (any transport). Shared by
// e2e_stdio.mjs and e2e_http.mjs.
//
//   import { exercise, seedStore } from './exercise.mjs';
//   seedStore(ctxkitBinary, home);        // before the server starts
//   await exercise(client, { binaryUri: BINARY_URI, resourceLinks: true });
//
// Throws (an AssertionError naming the step) on the first wrong answer.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

// The binary value seedStore writes (not UTF-8), and where it is.
export const BINARY_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a,
                                         0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80]);
export const BINARY_URI = 'ctxkit://global/e2e/binary';

// Writes the binary value with the ctxkit CLI (a JSON client cannot send
// bytes that are not UTF-8 through the set tool).
export function seedStore(ctxkitBinary, home) {
  execFileSync(ctxkitBinary, ['--home', home, 'set', 'e2e/binary'],
               { input: BINARY_BYTES });
}

function text(result) {
  return result.content.filter((c) => c.type === 'text')
      .map((c) => c.text).join('');
}

async function ok(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, false, `${name} failed: ${text(r)}`);
  return r;
}

async function fails(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `${name} should have failed`);
  return text(r);
}

export async function exercise(client, { binaryUri, resourceLinks = false } = {}) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.deepEqual(names, [...names].sort(), 'tools/list is sorted');
  const again = await client.listTools();
  assert.deepEqual(again.tools, tools, 'tools/list is deterministic');
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.inputSchema.additionalProperties, false, t.name);
    assert.ok(t.description.length > 60, t.name);
  }
  const called = new Set();
  const call = async (name, args) => { called.add(name); return ok(client, name, args); };

  // Values.
  const doc = 'alpha line\nbeta line: the token refresh fails with 401\ngamma line\n';
  const set = await call('set', { key: 'e2e/doc', value: doc, tags: ['e2e'] });
  const ref = set.structuredContent.ref;
  assert.match(ref, /^ck:[0-9a-z]+\.[A-Za-z0-9_-]{16}:1:t:\d+:g:e2e\/doc$/);
  const wholeDoc = await call('get', { key: 'e2e/doc' });
  assert.equal(text(wholeDoc), doc);
  assert.equal(wholeDoc.structuredContent, undefined, 'a whole value is its text alone');
  assert.equal(text(await call('get', { key: 'e2e/doc', ref: null, version: null })), doc,
               'null optional arguments are absent');
  assert.equal(text(await call('get', { ref, byte_offset: 0, byte_length: 5 })), 'alpha');
  assert.equal(text(await call('get', { key: 'e2e/doc', line_start: 1, line_end: 2 })),
               'beta line: the token refresh fails with 401\n');
  assert.equal((await call('ref', { key: 'e2e/doc', version: 1 })).structuredContent.ref, ref);
  assert.equal(text(await call('peek', { key: 'e2e/doc', start: -1 })), 'gamma line\n');
  const hits = await call('search', { pattern: 'REFRESH', case_insensitive: true });
  assert.equal(hits.structuredContent.matches[0].line, 2);
  const found = await call('find_relevant', { query: 'token refresh' });
  assert.equal(found.structuredContent.hits[0].key, 'e2e/doc');
  const sum = await call('summarize', { key: 'e2e/doc', max_tokens: 50, summarizer: 'structural' });
  assert.ok(sum.structuredContent.tokens <= 50);
  const listed = await call('list', { tags: ['e2e'] });
  assert.deepEqual(listed.structuredContent.items.map((i) => i.key), ['e2e/doc']);
  await call('set', { key: 'e2e/doc', value: 'second version' });
  const versions = await call('versions', { key: 'e2e/doc' });
  assert.equal(versions.structuredContent.versions.length, 2);
  assert.equal(text(await call('get', { ref })), doc, 'a static ref keeps v1');
  assert.equal((await call('tokens', { key: 'e2e/doc' })).structuredContent.tokens, 2);
  await call('set', { key: 'e2e/mine', value: 'draft', scope: 'agent' });
  assert.equal((await call('promote', { key: 'e2e/mine' })).structuredContent.scope, 'global');
  await call('set', { key: 'e2e/tmp', value: 'x' });
  await call('remove', { key: 'e2e/tmp' });
  assert.match(await fails(client, 'get', { key: 'e2e/tmp' }), /not_found/);
  assert.match(await fails(client, 'get', { key: 7 }), /arguments\.key/);

  // A value over the result limit: head + tail, the resource named in
  // structuredContent, and a resource_link when the server gives them
  // (--resource-links).
  let big = '';
  for (let i = 0; i < 4000; i++) big += `row ${i} alpha beta gamma delta\n`;
  await call('set', { key: 'e2e/big', value: big });
  const cut = await call('get', { key: 'e2e/big' });
  const link = cut.content.find((c) => c.type === 'resource_link');
  assert.equal(cut.structuredContent.truncated.uri, 'ctxkit://global/e2e/big@1');
  if (resourceLinks) {
    assert.equal(link?.uri, 'ctxkit://global/e2e/big@1', 'a resource_link for the whole value');
  } else {
    assert.equal(link, undefined, 'no resource_link unless asked for');
  }
  assert.ok(text(cut).includes('row 0 alpha') && text(cut).includes('row 3999 alpha'));
  assert.ok(!text(cut).includes('row 2000 alpha'), 'never the whole value');
  const [from, to] = cut.structuredContent.truncated.head_bytes;
  assert.equal(from, 0);
  const page = await call('get', { key: 'e2e/big', byte_offset: to, byte_length: 64 });
  assert.equal(text(page), big.slice(to, to + 64));
  const whole = await client.readResource({ uri: cut.structuredContent.truncated.uri });
  assert.equal(whole.contents[0].text, big);

  // Sessions.
  await call('set', { key: 'e2e/plan', value: 'the plan\nPLAN-BODY', scope: 'session' });
  await call('session_activate', { object: 'e2e/plan' });
  assert.ok(text(await call('session_render', { budget_tokens: 4000 })).includes('PLAN-BODY'));
  await call('session_deactivate', { object: 'e2e/plan' });
  assert.ok(!text(await call('session_render', { budget_tokens: 4000 })).includes('PLAN-BODY'));
  await call('session_pin', { object: 'e2e/plan', version: 1 });
  assert.ok(text(await call('session_render', { budget_tokens: 4000, format: 'anthropic' }))
                .includes('PLAN-BODY'));

  // A long session: messages appended turn by turn, compacted under a small
  // budget, every render recorded (replayed, compared) and a compaction
  // expanded back to its messages.
  const turn = (t) => [
    { role: 'user', content: `question ${t}` },
    { role: 'assistant', content: null,
      tool_calls: [{ id: `c${t}`, type: 'function', function: { name: 'grep', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: `c${t}`, content: `result line ${t}\n`.repeat(40) },
    { role: 'assistant', content: `answer ${t}` },
  ];
  for (let t = 0; t < 12; ++t) {
    const added = await call('session_ingest', { messages: turn(t) });
    assert.equal(added.structuredContent.messages_added, 4);
  }
  const wide = await call('session_render', { budget_tokens: 100000 });
  const narrow = await call('session_render', { budget_tokens: 1000 });
  const compaction = narrow.structuredContent.compacted;
  assert.ok(compaction && compaction.ref.startsWith('ck:'), 'a compaction');
  assert.ok(narrow.structuredContent.tokens <= 1000);
  const back = await call('session_expand', { compaction: compaction.ref });
  assert.ok(text(back).includes('question 0'));
  const replay = await call('session_render', { at: wide.structuredContent.record });
  assert.equal(text(replay), text(wide));
  const fork = await call('session_fork', { at: wide.structuredContent.record,
                                            new_session: `fork-${Date.now()}` });
  assert.ok(fork.structuredContent.session.startsWith('fork-'), 'the new session');
  const diff = await call('session_diff', {
    from: wide.structuredContent.record, to: narrow.structuredContent.record });
  assert.equal(diff.structuredContent.compacted[0].ref, compaction.ref);
  // A compaction asked for: the next render makes it whatever the budget.
  for (let t = 12; t < 15; ++t) await call('session_ingest', { messages: turn(t) });
  await call('session_compact', { instructions: 'keep the question numbers' });
  const asked = await call('session_render', { budget_tokens: 100000 });
  assert.ok(asked.structuredContent.compacted, 'the compaction asked for');

  // Externalize (SPEC-25).
  const ext = await call('externalize', { query: 'What is the plan?' });
  assert.ok(text(ext).includes('What is the plan?'));
  assert.ok(Array.isArray(ext.structuredContent.variables));

  // Tool outputs.
  const saved = await call('tool_output_save', {
    tool_name: 'grep', args: { pattern: 'TODO' }, result: 'src/a.cc:3: TODO fix the parser' });
  const pointer = saved.structuredContent.pointer;
  assert.equal(text(await call('tool_output_load', { pointer })), 'src/a.cc:3: TODO fix the parser');
  const sel = await call('tool_output_select', { question: 'where is the TODO', use_llm: false });
  assert.equal(sel.structuredContent.selected[0].pointer, pointer);

  // Notes.
  const note = await call('notes_add', { slug: 'e2e finding', body: 'JWT expires after 15 min.',
                                         tags: ['security'] });
  const path = note.structuredContent.path;
  await call('notes_update', { path, message: 'verified' });
  const notes = await call('notes_search', { text: 'jwt', tags: ['security'] });
  assert.equal(notes.structuredContent.notes[0].path, path);

  const missed = names.filter((n) => !called.has(n));
  assert.deepEqual(missed, [], 'every listed tool was called');

  // Resources.
  const uris = [];
  let cursor;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    uris.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
  } while (cursor);
  assert.ok(uris.includes('ctxkit://global/e2e/doc'));
  const read = await client.readResource({ uri: 'ctxkit://global/e2e/doc@1' });
  assert.equal(read.contents[0].text, doc);
  if (binaryUri) {
    const bin = await client.readResource({ uri: binaryUri });
    assert.equal(bin.contents[0].text, undefined);
    assert.deepEqual(Buffer.from(bin.contents[0].blob, 'base64'), BINARY_BYTES);
  }
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.equal(resourceTemplates[0].uriTemplate, 'ctxkit://{scope}/{key}@{version}');
  await client.subscribeResource({ uri: 'ctxkit://global/e2e/doc' });
  await client.unsubscribeResource({ uri: 'ctxkit://global/e2e/doc' });
  const done = await client.complete({
    ref: { type: 'ref/resource', uri: 'ctxkit://{scope}/{key}@{version}' },
    argument: { name: 'key', value: 'e2e/d' } });
  assert.deepEqual(done.completion.values, ['e2e/doc']);

  // Prompts.
  const { prompts } = await client.listPrompts();
  assert.ok(prompts.some((p) => p.name === 'root_prompt'));
  const prompt = await client.getPrompt({ name: 'root_prompt',
                                          arguments: { query: 'Why did it fail?' } });
  const promptText = prompt.messages[0].content.text;
  assert.ok(promptText.includes('Why did it fail?'));
  assert.ok(!promptText.includes('PLAN-BODY'), 'summaries, not content');
  await client.setLoggingLevel('warning');
  await client.ping();
  return { tools: names.length, resources: uris.length };
}
