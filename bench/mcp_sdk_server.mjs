// The anchor of bench/mcp_stdio.mjs: an MCP server on stdio built with the
// official TypeScript SDK, with one tool, `get`, that answers a key with the
// value it holds in memory (as ctxkit's `get` answers one with a stored
// value). Usage: node bench/mcp_sdk_server.mjs VALUE_FILE
import {readFileSync} from 'node:fs';

import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js';
import {z} from 'zod';

const value = readFileSync(process.argv[2], 'utf8');
const values = new Map([['bench/value', value]]);

const server = new McpServer({name: 'sdk-anchor', version: '1.0.0'});
server.registerTool(
    'get', {description: 'Read a value', inputSchema: {key: z.string()}},
    async ({key}) => ({content: [{type: 'text', text: values.get(key) ?? ''}]}));
await server.connect(new StdioServerTransport());
