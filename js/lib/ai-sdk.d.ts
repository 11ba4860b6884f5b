// Types of ctxkit/ai-sdk (ai-sdk.js): a Vercel AI SDK language model
// middleware that sends the model ctxkit's render of the prompt within a
// budget, and the ctxkit_* agent tools as AI SDK tools.

// The AI SDK's packages are ES modules.
import type {LanguageModelV4Middleware, LanguageModelV4Prompt}
    from '@ai-sdk/provider' with {'resolution-mode': 'import'};
import type {Tool}
    from '@ai-sdk/provider-utils' with {'resolution-mode': 'import'};

import type {IngestReport, RenderResult, Session} from './index.js';

export interface CtxkitMiddlewareOptions {
  /** The ctxkit session the prompt is ingested into. */
  session: Session;
  /** Tokens the prompt (and, with tools, the tools) may use (>= 1). */
  budget: number;
  /** true: the agent tools join the call's tools and count in the budget
   * with the caller's own; pass ctxkitTools(session) to generateText so
   * their calls run. */
  tools?: boolean;
  /** false: no render record. */
  record?: boolean;
  /** Called with each render's report (tokens, breakdown, ...) and the
   * report of the ingestion before it. */
  onRender?: (result: RenderResult, ingest: IngestReport) => void;
}

/** wrapLanguageModel({model, middleware: ctxkitMiddleware({...})}). */
export function ctxkitMiddleware(
    options: CtxkitMiddlewareOptions): LanguageModelV4Middleware;

/** The agent tools (ctxkit_read, ...) as AI SDK tools whose execute runs
 * session.call; spread into generateText's `tools`. */
export function ctxkitTools(
    session: Session): Record<string, Tool<unknown, string>>;

/** An AI SDK prompt as an OpenAI Chat Completions log (the `openai`
 * ingestion format). */
export function toChatLog(
    prompt: LanguageModelV4Prompt): Record<string, unknown>[];
