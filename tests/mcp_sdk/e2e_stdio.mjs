// End to end over stdio with the official TypeScript SDK client: spawns
// `ctxkit mcp --resource-links` on a temporary store and runs exercise()
// (every tool, resources, prompt). Usage: node e2e_stdio.mjs /path/to/ctxkit

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { exercise, seedStore, BINARY_URI } from './exercise.mjs';

const binary = process.argv[2];
if (!binary) {
  console.error('usage: e2e_stdio.mjs CTXKIT_BINARY');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'ctxkit-mcp-e2e-'));
const home = join(dir, 'store');
let code = 1;
try {
  seedStore(binary, home);
  const transport = new StdioClientTransport({
    command: binary,
    args: ['--home', home, '--agent', 'e2e', '--session', 'e2e-session', 'mcp',
           '--resource-links'],
    env: {
      HOME: dir,
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      CTXKIT_TOOL_CONTEXT_DIR: join(dir, 'captures'),
      SFA_CONTEXT_STORE: join(dir, 'notes'),
    },
    cwd: dir,  // Whatever the server writes relative to its cwd stays here.
    stderr: 'inherit',
  });
  const client = new Client({ name: 'ctxkit-e2e-stdio', version: '1.0.0' });
  await client.connect(transport);
  assert(client.getServerVersion().name === 'ctxkit', 'serverInfo.name');
  const summary = await exercise(client, { binaryUri: BINARY_URI, resourceLinks: true });
  await client.close();
  console.log(`mcp_sdk_stdio: ok (${summary.tools} tools, ${summary.resources} resources)`);
  code = 0;
} catch (err) {
  console.error('mcp_sdk_stdio: FAILED');
  console.error(err);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);

function assert(cond, what) {
  if (!cond) throw new Error(`assertion failed: ${what}`);
}
