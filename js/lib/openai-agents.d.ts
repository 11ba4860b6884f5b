// Types of ctxkit/openai-agents (openai-agents.js): a Session of the OpenAI
// Agents SDK (@openai/agents) over a ctxkit store, and ctxkit's render of
// the model input within a budget.

import type {AgentInputItem, CallModelInputFilter, FunctionTool,
             Session as AgentsSession} from '@openai/agents-core';

import type {IngestReport, RenderResult, Session, SessionPolicy, Store} from './index.js';

export interface CtxkitSessionOptions {
  store: Store;
  /** Default: a random UUID. */
  sessionId?: string;
  /** The key of the items' stream; default `openai-agents/<sessionId>`. */
  key?: string;
  /** The ctxkit session that renders; default the session id (1-64 bytes
   * of [A-Za-z0-9._-]). */
  contextSessionId?: string;
  /** Its policy, when the adapter creates it. */
  policy?: SessionPolicy;
}

export interface ModelInputFilterOptions {
  /** Tokens the model input may use (>= 1). */
  budget: number;
  /** true: render as a request carrying the agent tools (give the agent
   * agentTools()); an array: the agent tools and these. */
  tools?: boolean | object[];
  /** false: no render record. */
  record?: boolean;
  /** Called with each render's report (tokens, breakdown, ...) and the
   * report of the ingestion before it. */
  onRender?: (result: RenderResult, ingest: IngestReport) => void;
}

/** An Agents SDK Session whose items live in a ctxkit store, one stream
 * per session: getItems gives back exactly what addItems stored, in this
 * process or another. */
export class CtxkitSession implements AgentsSession {
  constructor(options: CtxkitSessionOptions);
  readonly store: Store;
  readonly sessionId: string;
  readonly key: string;
  readonly contextSessionId: string;
  getSessionId(): Promise<string>;
  getItems(limit?: number): Promise<AgentInputItem[]>;
  addItems(items: AgentInputItem[]): Promise<void>;
  popItem(): Promise<AgentInputItem | undefined>;
  clearSession(): Promise<void>;
  /** The ctxkit Session that renders (opened, else created). */
  contextSession(): Promise<Session>;
  /** A callModelInputFilter: the model receives ctxkit's render of its
   * input (tool outputs behind refs and handles) within the budget; the
   * session keeps the items whole. */
  modelInputFilter(options: ModelInputFilterOptions): CallModelInputFilter;
  /** The ctxkit_* agent tools as function tools run by contextSession(). */
  agentTools(): FunctionTool<unknown, any, string>[];
}

/** One SDK item as an OpenAI Responses input item (the `openai-responses`
 * ingestion format). */
export function toResponsesItem(item: AgentInputItem): Record<string, unknown>;
