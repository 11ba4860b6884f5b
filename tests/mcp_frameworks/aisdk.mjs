// The AI SDK's own MCP client against ctxkit: @ai-sdk/mcp's
// createMCPClient over `ctxkit mcp` (its stdio transport) and over
// `ctxkit serve` (its Streamable HTTP transport), the tools handed to
// generateText with the SDK's MockLanguageModelV4 playing a scripted model.
// The client first probes protocol 2026-07-28 (server/discover) and falls
// back to initialize. The model calls set, get, search, peek (optional
// arguments sent as null, as a strict-mode model does), a get over the
// result limit and a failing get; every result must reach the next model
// call, and the client must report no uncaught error (it refuses server
// messages it did not ask for, such as an unrequested notifications/message).
//
//   node tests/mcp_frameworks/aisdk.mjs path/to/ctxkit

import { requirePackages, runTest, script, checkResults,
         check } from './common.mjs';

requirePackages('mcp_frameworks_aisdk', ['ai', '@ai-sdk/mcp']);
const { createMCPClient } = await import('@ai-sdk/mcp');
const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
const { generateText, stepCountIs } = await import('ai');
const { MockLanguageModelV4 } = await import('ai/test');


const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

// The text of every tool result in the prompt of a model call, in order.
function toolResults(prompt) {
  const out = [];
  for (const m of prompt) {
    if (m.role !== 'tool') continue;
    for (const part of m.content) {
      if (part.type !== 'tool-result') continue;
      const o = part.output;
      out.push(o.type === 'content' ? o.value.map((v) => v.text ?? JSON.stringify(v)).join('')
                                    : typeof o.value === 'string' ? o.value
                                                                  : JSON.stringify(o.value));
    }
  }
  return out;
}

async function run(transportName, transport) {
  const uncaught = [];
  const client = await createMCPClient({ transport, onUncaughtError: (e) => uncaught.push(e) });
  try {
    check(client.initializeResult.protocolVersion === '2025-11-25',
          `${transportName}: fell back from 2026-07-28 to 2025-11-25`);
    const tools = await client.tools();
    check(Object.keys(tools).length === 28, `${transportName}: 28 tools loaded`);
    const steps = script({ nulls: true });
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        const i = model.doGenerateCalls.length - 1;
        const step = steps[i];
        return step
            ? { content: [{ type: 'tool-call', toolCallId: `call_${i}`, toolName: step.name,
                            input: JSON.stringify(step.args) }],
                finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }
            : { content: [{ type: 'text', text: 'done' }],
                finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      },
    });
    const result = await generateText({
      model, tools, prompt: 'look into the auth bug', stopWhen: stepCountIs(steps.length + 2) });
    check(result.text === 'done', `${transportName}: the run finished`);
    const calls = model.doGenerateCalls;
    check(calls.length === steps.length + 1, `${transportName}: ${calls.length} model calls`);
    check(calls[0].tools.length === 28, `${transportName}: 28 tool schemas sent`);
    checkResults(toolResults(calls[calls.length - 1].prompt));
    check(true, `${transportName}: set/get/search/peek with null optionals, a large result ` +
                'and a failing tool reached the model');
    // The failing tool's result was the last call: let its notifications
    // (if any were sent) arrive before counting.
    await new Promise((r) => setTimeout(r, 200));
    check(uncaught.length === 0,
          `${transportName}: no uncaught client error (${uncaught.map(String).join('; ')})`);
  } finally {
    await client.close();
  }
}

await runTest('mcp_frameworks_aisdk', {
  stdio: (store) => run('stdio', new Experimental_StdioMCPTransport({ ...store.stdio, stderr: 'inherit' })),
  http: (url) => run('http', { type: 'http', url }),
});
