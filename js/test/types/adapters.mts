// Compiled (never run) by types.test.mjs under strict TypeScript: the
// declarations of ctxkit/openai-agents and ctxkit/ai-sdk used with the
// frameworks' own types, as docs/typescript.md uses them.
import {createRequire} from 'node:module';

import {Agent, run} from '@openai/agents';
import {generateText, wrapLanguageModel, type LanguageModel} from 'ai';

import type * as Ctxkit from '../../lib/index.js';
import type * as Agents from '../../lib/openai-agents.js';
import type * as AiSdk from '../../lib/ai-sdk.js';

const require = createRequire(import.meta.url);
const ck = require('ctxkit') as typeof Ctxkit;
const agents = require('ctxkit/openai-agents') as typeof Agents;
const aiSdk = require('ctxkit/ai-sdk') as typeof AiSdk;

export async function agentsSession(store: Ctxkit.Store): Promise<void> {
  const session = new agents.CtxkitSession({store, sessionId: 'chat-1'});
  const agent = new Agent({name: 'sre', instructions: 'Be brief.',
                           tools: session.agentTools()});
  const filter = session.modelInputFilter({
    budget: 8000, tools: true,
    onRender: (r: Ctxkit.RenderResult) => { void r.tokens; }});
  const result = await run(agent, 'hi', {session, callModelInputFilter: filter});
  const items = await session.getItems(10);
  const last = await session.popItem();
  const context: Ctxkit.Session = await session.contextSession();
  const id: string = await session.getSessionId();
  await session.addItems(items);
  await session.clearSession();
  const mapped: Record<string, unknown> = agents.toResponsesItem(
      {role: 'user', content: 'hi'});
  void [result.finalOutput, last, context, id, mapped];
}

export async function aiMiddleware(session: Ctxkit.Session,
                                   base: LanguageModel): Promise<void> {
  if (typeof base === 'string') return;
  const model = wrapLanguageModel({
    model: base,
    middleware: aiSdk.ctxkitMiddleware({session, budget: 8000, tools: true}),
  });
  const result = await generateText({
    model, prompt: 'hi', tools: {...aiSdk.ctxkitTools(session)}});
  const log: Record<string, unknown>[] = aiSdk.toChatLog(
      [{role: 'user', content: [{type: 'text', text: 'hi'}]}]);
  void [result.text, log];
}
