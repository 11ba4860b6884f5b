// LangChain's own MCP client against ctxkit: @langchain/mcp-adapters
// (MultiServerMCPClient) loads the tools of `ctxkit mcp` (stdio) and of
// `ctxkit serve` (Streamable HTTP) into a LangGraph ReAct agent whose model
// is ChatOpenAI, then ChatAnthropic, each with a stubbed fetch that returns
// canned provider responses: the provider classes format every request as
// they would for the real API, offline. The scripted model calls set, get,
// search, peek, a get over the result limit and a failing get; every tool
// result must reach the next request, compactly and in a form the provider
// accepts.
//
//   node tests/mcp_frameworks/langchain.mjs path/to/ctxkit

import { requirePackages, runTest, script, checkResults, check,
         stubFetch, openAIChatResponse, anthropicResponse, openAIToolResults,
         anthropicToolResults } from './common.mjs';

requirePackages('mcp_frameworks_langchain',
                ['@langchain/mcp-adapters', '@langchain/langgraph', '@langchain/openai',
                 '@langchain/anthropic', '@langchain/core']);
const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
const { createReactAgent } = await import('@langchain/langgraph/prebuilt');
const { ChatOpenAI } = await import('@langchain/openai');
const { ChatAnthropic } = await import('@langchain/anthropic');


// The request body a provider class sends must be one its API accepts:
// the checks the real endpoints make that LangChain's formatting can miss.
function checkOpenAIRequest(body) {
  for (const m of body.messages) {
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content) {
      if (p.type !== 'text') throw new Error(`OpenAI refuses a ${m.role} part of type ${p.type}`);
      const extra = Object.keys(p).filter((k) => k !== 'type' && k !== 'text');
      if (extra.length) throw new Error(`OpenAI refuses text part fields ${extra}`);
    }
  }
}

function checkAnthropicRequest(body) {
  for (const m of body.messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result' || !Array.isArray(b.content)) continue;
      for (const p of b.content) {
        if (p.type !== 'text') throw new Error(`Anthropic: tool_result part of type ${p.type}`);
      }
    }
  }
}

const providers = [
  { name: 'ChatOpenAI', respond: openAIChatResponse, results: openAIToolResults,
    validate: checkOpenAIRequest,
    model: (fetch) => new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test', maxRetries: 0,
                                       configuration: { fetch } }) },
  { name: 'ChatAnthropic', respond: anthropicResponse, results: anthropicToolResults,
    validate: checkAnthropicRequest,
    model: (fetch) => new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'test',
                                          maxRetries: 0, clientOptions: { fetch } }) },
];

async function run(transportName, connection) {
  const client = new MultiServerMCPClient({ mcpServers: { ctxkit: connection },
                                            throwOnLoadError: true });
  try {
    const tools = await client.getTools();
    check(tools.length === 28, `${transportName}: 28 tools loaded`);
    for (const provider of providers) {
      const steps = script();
      const { fetch, requests } = stubFetch((i) => provider.respond(steps[i], i));
      const agent = createReactAgent({ llm: provider.model(fetch), tools });
      await agent.invoke({ messages: [{ role: 'user', content: 'look into the auth bug' }] },
                         { recursionLimit: 40 });
      check(requests.length === steps.length + 1,
            `${transportName} ${provider.name}: ${requests.length} model requests`);
      const last = requests[requests.length - 1];
      for (const r of requests) provider.validate(r);
      check(last.tools.length === 28, `${transportName} ${provider.name}: 28 tool schemas sent`);
      checkResults(provider.results(last));
      check(true, `${transportName} ${provider.name}: set/get/search/peek, a large result ` +
                  'and a failing tool reached the model');
    }
  } finally {
    await client.close();
  }
}

await runTest('mcp_frameworks_langchain', {
  stdio: (store) => run('stdio', { transport: 'stdio', ...store.stdio, stderr: 'inherit' }),
  http: (url) => run('http', { transport: 'http', url }),
});
