// End to end over Streamable HTTP with the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package.json):
//
//   node tests/mcp_sdk/e2e_http.mjs path/to/ctxkit
//
// Starts `ctxkit serve --port 0` on a temporary store, connects through
// StreamableHTTPClientTransport and runs the shared exercise() from
// exercise.mjs (every tool, text and binary resources, the template, the
// root prompt), then the checks only HTTP has: a subscription notified over
// the GET event stream, two sessions isolated from each other, session
// termination.
// Exits non-zero on the first failure.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { servedUrl } from '../mcp_frameworks/common.mjs';
import { exercise, seedStore, BINARY_URI } from './exercise.mjs';

const bin = process.argv[2];
if (!bin) {
  console.error('usage: e2e_http.mjs path/to/ctxkit');
  process.exit(2);
}

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
  console.log(`ok - ${what}`);
}

const text = (result) =>
  (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');

const dir = mkdtempSync(join(tmpdir(), 'ctxkit-sdk-http-'));
mkdirSync(join(dir, 'home'));
seedStore(bin, join(dir, 'store'));
const server = spawn(bin, ['--home', join(dir, 'store'), 'serve', '--port', '0'], {
  env: {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(dir, 'home'),
    CTXKIT_TOOL_CONTEXT_DIR: join(dir, 'captures'),
    SFA_CONTEXT_STORE: join(dir, 'notes'),
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stderr = '';  // Shown when the run fails.
server.stderr.on('data', (d) => { stderr += d; });
const serverUrl = () => servedUrl(server);

async function connect(url, name) {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

async function main() {
  const url = await serverUrl();
  console.log(`# ctxkit serve at ${url}`);
  const a = await connect(url, 'e2e-http-a');
  check(typeof a.transport.sessionId === 'string' && a.transport.sessionId.length === 72,
        'initialize returned an Mcp-Session-Id');
  check(['2025-11-25', '2025-06-18'].includes(a.transport.protocolVersion),
        `negotiated ${a.transport.protocolVersion}`);

  check(a.client.getServerVersion().name === 'ctxkit', 'serverInfo.name is ctxkit');
  const summary = await exercise(a.client, { binaryUri: BINARY_URI });
  check(true, `shared exercise over HTTP (${summary.tools} tools, ${summary.resources} resources)`);

  // A new version reaches the subscriber over the GET event stream.
  await a.client.callTool({ name: 'set', arguments: { key: 'watched', value: 'v1' } });
  const updated = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no resources/updated within 10 s')), 10000);
    a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      if (n.params.uri === 'ctxkit://global/watched') {
        clearTimeout(timer);
        resolve(n);
      }
    });
  });
  await a.client.subscribeResource({ uri: 'ctxkit://global/watched' });
  // Give the client's GET stream a moment to open before the change.
  await new Promise((r) => setTimeout(r, 300));
  await a.client.callTool({ name: 'set', arguments: { key: 'watched', value: 'v2' } });
  await updated;
  check(true, 'notifications/resources/updated arrived over the event stream');

  // Two clients: each its own agent and session scope.
  const b = await connect(url, 'e2e-http-b');
  check(b.transport.sessionId !== a.transport.sessionId, 'second client got its own session');
  const secret = await a.client.callTool({
    name: 'set', arguments: { key: 'private', value: 'A-SECRET', scope: 'session' } });
  check(!secret.isError, 'client A stored a session-scoped value');
  const peek = await b.client.callTool({ name: 'get', arguments: { key: 'private' } });
  check(peek.isError === true && !text(peek).includes('A-SECRET'),
        "client B cannot read client A's session value");
  const bList = await b.client.listResources();
  check(!bList.resources.some((r) => r.uri.includes('private')),
        "client B's resources/list does not show it");
  const mine = await a.client.callTool({ name: 'get', arguments: { key: 'private' } });
  check(text(mine).includes('A-SECRET'), 'client A still reads it');

  // Termination: the session is gone afterwards.
  const bSession = b.transport.sessionId;
  await b.transport.terminateSession();
  const after = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
               'mcp-session-id': bSession },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  check(after.status === 404, 'a terminated session answers 404');
  await b.client.close();
  await a.client.close();
}

let failed = false;
try {
  await main();
} catch (e) {
  failed = true;
  console.error(`not ok - ${e.stack ?? e}`);
  console.error(`# server stderr:\n${stderr}`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => (server.exitCode !== null ? r() : server.on('exit', r)));
  if (server.exitCode !== 0 && server.signalCode === null && !failed) {
    console.error(`not ok - ctxkit serve exited ${server.exitCode}: ${stderr}`);
    failed = true;
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
