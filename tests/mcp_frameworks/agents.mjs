// The OpenAI Agents SDK's own MCP client against ctxkit: MCPServerStdio
// (`ctxkit mcp`) and MCPServerStreamableHttp (`ctxkit serve`) on an Agent
// with mcpConfig.convertSchemasToStrict, so the tools go to the model as
// strict schemas, and the model is the SDK's OpenAIChatCompletionsModel
// over an OpenAI client whose fetch is stubbed with canned responses (the
// SDK's request formatting runs, offline). The scripted model calls set,
// get, search, peek with every optional argument null (what a strict-mode
// model sends), a get over the result limit and a failing get; every
// result must reach the next request.
//
//   node tests/mcp_frameworks/agents.mjs path/to/ctxkit

import { requirePackages, runTest, script, checkResults, check,
         stubFetch, openAIChatResponse, openAIToolResults } from './common.mjs';

requirePackages('mcp_frameworks_agents', ['@openai/agents', 'openai']);
const { Agent, Runner, MCPServerStdio, MCPServerStreamableHttp, setTracingDisabled } =
    await import('@openai/agents');
const { OpenAIChatCompletionsModel } = await import('@openai/agents-openai');
const { default: OpenAI } = await import('openai');

setTracingDisabled(true);

async function run(transportName, server) {
  await server.connect();
  try {
    const steps = script({ nulls: true });
    const { fetch, requests } = stubFetch((i) => openAIChatResponse(steps[i], i));
    const client = new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 });
    const agent = new Agent({
      name: 'ctxkit-user', instructions: 'Use ctxkit.',
      model: new OpenAIChatCompletionsModel(client, 'gpt-4o-mini'),
      mcpServers: [server], mcpConfig: { convertSchemasToStrict: true },
    });
    const result = await new Runner({ tracingDisabled: true })
        .run(agent, 'look into the auth bug', { maxTurns: steps.length + 2 });
    check(result.finalOutput === 'done', `${transportName}: the run finished`);
    check(requests.length === steps.length + 1, `${transportName}: ${requests.length} model requests`);
    const tools = requests[0].tools;
    check(tools.length === 28, `${transportName}: 28 tool schemas sent`);
    const strict = tools.filter((t) => t.function.strict).map((t) => t.function.name);
    const loose = tools.filter((t) => !t.function.strict).map((t) => t.function.name).sort();
    check(loose.join() === 'session_ingest,tool_output_save',
          `${transportName}: ${strict.length} strict schemas (not strict: ${loose.join(', ')})`);
    checkResults(openAIToolResults(requests[requests.length - 1]));
    check(true, `${transportName}: set/get/search/peek with null optionals, a large result ` +
                'and a failing tool reached the model');
  } finally {
    await server.close();
  }
}

await runTest('mcp_frameworks_agents', {
  stdio: (store) => run('stdio', new MCPServerStdio({ name: 'ctxkit', ...store.stdio })),
  http: (url) => run('http', new MCPServerStreamableHttp({ name: 'ctxkit', url })),
});
