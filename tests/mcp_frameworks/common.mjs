// What the framework tests share (agents.mjs, aisdk.mjs, langchain.mjs):
// a temporary store seeded with a value over the result limit, `ctxkit mcp`
// launch parameters and a running `ctxkit serve`, the scripted turn every
// framework's model plays, canned OpenAI and Anthropic responses for a
// stubbed fetch, and the checks on what reached the model.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// The result limit the servers run with: small, so a value of a few KB is
// "large" and the runs stay fast.
export const RESULT_TOKEN_LIMIT = 200;
// A value under the limit (225 bytes) and one far over it.
export const SMALL = 'The token refresh fails with 401 because the clock skew ' +
    'check rejects tokens issued less than five seconds ago; the fix is to ' +
    'allow a 30 s leeway in auth/jwt.cc and log the skew. Owner: platform. ' +
    'Status: open, seen 14 times.\n';
export const BIG = Array.from({ length: 400 },
                              (_, i) => `row ${i} alpha beta gamma delta\n`).join('');

// Exits 77 (ctest's skip) with a clear message when a package the test
// drives is not installed: node_modules comes from `npm ci`
// (scripts/setup.sh).
export function requirePackages(test, names) {
  for (const name of names) {
    try {
      import.meta.resolve(name);
    } catch {
      console.log(`${test}: SKIPPED: ${name} is not installed; run ` +
                  'scripts/setup.sh (npm ci) for the pinned node_modules');
      process.exit(77);
    }
  }
}

// A temporary home with the store seeded (the big value set with the CLI,
// as a harness would have saved a tool output), the environment the
// servers run in and how to launch `ctxkit mcp`.
export function makeStore(binaryPath) {
  const binary = resolve(binaryPath);
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-mcp-fw-'));
  const store = join(dir, 'store');
  mkdirSync(join(dir, 'home'));
  execFileSync(binary, ['--home', store, 'set', 'fw/big'], { input: BIG });
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(dir, 'home'),
    CTXKIT_TOOL_CONTEXT_DIR: join(dir, 'captures'),
    SFA_CONTEXT_STORE: join(dir, 'notes'),
  };
  return {
    dir,
    env,
    binary,
    stdio: {
      command: binary,
      args: ['--home', store, '--agent', 'fw', 'mcp',
             '--result-token-limit', String(RESULT_TOKEN_LIMIT)],
      env,
      cwd: dir,
    },
    serveArgs: ['--home', store, 'serve', '--port', '0',
                '--result-token-limit', String(RESULT_TOKEN_LIMIT)],
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// The URL a spawned `ctxkit serve --port 0` prints on its first line of
// stdout (rejects if it exits first, or after 30 s).
export function servedUrl(server) {
  let stderr = '';
  server.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL in 30 s: ${stderr}`)), 30000);
    server.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl).trim());
      }
    });
    server.on('exit', (code) => reject(new Error(`ctxkit serve exited ${code}: ${stderr}`)));
  });
}

// Starts `ctxkit serve --port 0` on the store; resolves to { url, stop }.
export async function startServe(store) {
  const server = spawn(store.binary, store.serveArgs, {
    env: store.env, cwd: store.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await servedUrl(server);
  const stop = async () => {
    if (server.exitCode !== null) return;
    const exited = new Promise((r) => server.on('exit', r));
    server.kill('SIGTERM');
    await exited;
  };
  return { url, stop };
}

// The tool calls the scripted model makes, in order, one per model turn;
// `nulls` sends every optional argument as null, as a model bound to a
// strict schema does. After the last it answers with text.
export function script({ nulls = false } = {}) {
  const opt = (args, optional) => {
    if (!nulls) return args;
    const out = { ...args };
    for (const name of optional) if (!(name in out)) out[name] = null;
    return out;
  };
  return [
    { name: 'set', args: opt({ key: 'fw/doc', value: SMALL },
                             ['scope', 'type', 'tags', 'persist', 'append', 'if_version']) },
    { name: 'get', args: opt({ key: 'fw/doc' },
                             ['ref', 'scope', 'version', 'byte_offset', 'byte_length',
                              'line_start', 'line_end']) },
    { name: 'search', args: opt({ pattern: 'clock skew' },
                                ['keys', 'refs', 'regex', 'case_insensitive', 'context_lines',
                                 'max_results', 'scope']) },
    { name: 'peek', args: opt({ key: 'fw/doc', unit: 'bytes', start: 0, end: 9 },
                              ['ref', 'scope', 'version', 'max_bytes']) },
    { name: 'get', args: opt({ key: 'fw/big' }, ['ref', 'scope', 'version']) },
    { name: 'get', args: { key: 'fw/missing' } },
  ];
}

// Checks the tool results the model was shown, in script order: `results`
// holds the text of each, as the framework put it in the next request.
export function checkResults(results) {
  assert.equal(results.length, 6, `6 tool results reached the model, got ${results.length}`);
  const [set, get, search, peek, big, missing] = results;
  assert.match(set, new RegExp(`ck:[0-9a-z]+\\.[A-Za-z0-9_-]{16}:\\d+:t:${SMALL.length}:g:fw/doc`),
               'set: the ref');
  assert.ok(get.includes(SMALL.trim()), 'get: the value');
  assert.ok(get.length < SMALL.length * 1.25,
            `get: the value reaches the model compactly (${get.length} chars for ` +
            `${SMALL.length} bytes)`);
  assert.ok(search.includes('clock skew'), 'search: the match');
  assert.ok(peek.includes('The token'), 'peek: the slice');
  assert.ok(big.includes('[ctxkit: this result is'), 'big get: the note');
  assert.ok(big.includes('row 0 alpha') && big.includes('row 399 alpha'), 'big: head and tail');
  assert.ok(!big.includes('row 200 alpha'), 'big: never whole');
  assert.ok(big.includes('byte_offset'), 'big: the get call that reads on');
  assert.match(missing, /not_found/, 'failing tool: its error reached the model');
}

// The test's body: `stdio(store)`, then `http(url)` against a `ctxkit
// serve` of the same store; prints "<test>: ok" or "<test>: FAILED" and
// the error, and exits 0 or 1. argv[2] is the ctxkit binary.
export async function runTest(test, { stdio, http }) {
  const binary = process.argv[2];
  if (!binary) {
    console.error(`usage: ${test}.mjs CTXKIT_BINARY`);
    process.exit(2);
  }
  const store = makeStore(binary);
  let code = 1;
  let serve;
  try {
    await stdio(store);
    serve = await startServe(store);
    await http(serve.url);
    console.log(`${test}: ok`);
    code = 0;
  } catch (err) {
    console.error(`${test}: FAILED`);
    console.error(err);
  } finally {
    await serve?.stop();
    store.cleanup();
  }
  process.exit(code);
}

export function check(cond, what) {
  assert.ok(cond, what);
  console.log(`ok - ${what}`);
}

// Canned provider responses, as a stubbed fetch returns them.
export function openAIChatResponse(step, index) {
  const message = step
      ? { role: 'assistant', content: null,
          tool_calls: [{ id: `call_${index}`, type: 'function',
                         function: { name: step.name, arguments: JSON.stringify(step.args) } }] }
      : { role: 'assistant', content: 'done' };
  return {
    id: `chatcmpl-${index}`, object: 'chat.completion', created: 0, model: 'gpt-test',
    choices: [{ index: 0, message, finish_reason: step ? 'tool_calls' : 'stop', logprobs: null }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

export function anthropicResponse(step, index) {
  return {
    id: `msg_${index}`, type: 'message', role: 'assistant', model: 'claude-test',
    content: step ? [{ type: 'tool_use', id: `toolu_${index}`, name: step.name, input: step.args }]
                  : [{ type: 'text', text: 'done' }],
    stop_reason: step ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

// A fetch that answers each request with respond(index, body) as JSON and
// keeps the parsed request bodies in `requests`.
export function stubFetch(respond) {
  const requests = [];
  const fetch = async (url, init) => {
    const body = JSON.parse(typeof init?.body === 'string' ? init.body
                                                           : await new Response(init.body).text());
    requests.push(body);
    return new Response(JSON.stringify(respond(requests.length - 1, body)),
                        { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, requests };
}

// The text of every tool result in an OpenAI chat request / an Anthropic
// messages request, in order (content parts joined).
export function openAIToolResults(body) {
  return body.messages.filter((m) => m.role === 'tool').map((m) => partsText(m.content));
}

export function anthropicToolResults(body) {
  const out = [];
  for (const m of body.messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) if (b.type === 'tool_result') out.push(partsText(b.content));
  }
  return out;
}

function partsText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content.map((p) => (p.type === 'text' ? p.text : JSON.stringify(p))).join('');
}
