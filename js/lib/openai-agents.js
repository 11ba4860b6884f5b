'use strict';
// ctxkit/openai-agents: a Session of the OpenAI Agents SDK (JS) whose items
// live in a ctxkit store, and the option to have ctxkit render what the
// model receives within a token budget (docs/typescript.md).
//
// Items: one stream value per session (key `openai-agents/<id>`), one JSON
// line per item, grown by View.append; so a Runner.run in another process,
// or after a restart, continues the conversation. getItems gives back
// exactly the items addItems stored (bytes and undefined fields included).
//
// Render: modelInputFilter(...) is a callModelInputFilter for Runner.run.
// It maps the model input (the SDK's camelCase items) to OpenAI Responses
// input items, ingests them into a ctxkit Session (a continuation is
// ingested incrementally) and returns ctxkit's render: tool outputs behind
// refs and handles, within the budget. agentTools() gives the ctxkit_*
// agent tools as the SDK's function tools, answered by that session.

const {randomUUID} = require('node:crypto');

const {Session, CtxkitError} = require('./index.js');

const kBytes = '$ctxkit.bytes';
const kUndefined = '$ctxkit.undefined';

// One item as a JSON line: Uint8Array as base64 and undefined fields
// marked, so decode() gives back what structuredClone would.
function encodeItem(item) {
  return JSON.stringify(item, function replace(key, value) {
    const original = this[key];
    if (original instanceof Uint8Array) {
      return {[kBytes]: Buffer.from(original).toString('base64')};
    }
    if (value === undefined && key !== '') return {[kUndefined]: 1};
    return value;
  });
}

function decode(value) {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === kBytes) {
    return new Uint8Array(Buffer.from(value[kBytes], 'base64'));
  }
  if (keys.length === 1 && keys[0] === kUndefined) return undefined;
  const out = {};
  for (const k of keys) out[k] = decode(value[k]);
  return out;
}

function isCode(error, code) {
  return error instanceof CtxkitError && error.code === code;
}

// --- SDK items <-> OpenAI Responses input items --------------------------

function partText(part) {
  if (typeof part === 'string') return part;
  if (!part || typeof part !== 'object') return '';
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return part.text;
    case 'refusal':
      return part.refusal;
    case 'audio':
      return part.transcript ? part.transcript : '[audio]';
    default:
      // Images and files: the render shows a note; an unchanged message
      // goes to the model as the SDK stored it, attachments included.
      return `[${part.type}${part.filename ? ` ${part.filename}` : ''}]`;
  }
}

function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(partText).join('');
  if (content && typeof content === 'object') return partText(content);
  return '';
}

function isMessage(item) {
  return item && typeof item === 'object' && typeof item.role === 'string' &&
         (item.type === undefined || item.type === 'message');
}

/** One SDK item as an OpenAI Responses input item (ctxkit's
 * `openai-responses` ingestion format). Items other than messages, function
 * calls and their results are kept as they are (ctxkit keeps them
 * verbatim). */
function toResponsesItem(item) {
  if (isMessage(item)) {
    return {type: 'message', role: item.role,
            content: contentText(item.content)};
  }
  if (item && item.type === 'function_call') {
    return {type: 'function_call', call_id: item.callId, name: item.name,
            arguments: item.arguments};
  }
  if (item && item.type === 'function_call_result') {
    return {type: 'function_call_output', call_id: item.callId,
            output: contentText(item.output)};
  }
  return item;
}

// The rendered input back as SDK items. Leading system messages (the
// system prompt, pinned objects, the index, compactions) become the
// instructions; an item the render shows unchanged is the SDK's own item
// (its identity, attachments and provider data kept); a changed one (a
// tool output behind a ref) is the original with the rendered output.
function fromRendered(rendered, originals, mapped) {
  let i = 0;
  const system = [];
  for (; i < rendered.length && rendered[i].role === 'system'; i++) {
    system.push(rendered[i].content);
  }
  const input = [];
  let cursor = 0;
  const find = (match) => {
    for (let j = cursor; j < originals.length; j++) {
      if (match(mapped[j])) {
        cursor = j + 1;
        return originals[j];
      }
    }
    return undefined;
  };
  for (; i < rendered.length; i++) {
    const item = rendered[i];
    if (isMessage(item)) {
      const text = contentText(item.content);
      const original = find((m) => m.type === 'message' &&
                                   m.role === item.role && m.content === text);
      if (original) {
        input.push(original);
      } else if (item.role === 'assistant') {
        input.push({type: 'message', role: 'assistant', status: 'completed',
                    content: [{type: 'output_text', text}]});
      } else {
        input.push({type: 'message', role: item.role, content: text});
      }
    } else if (item.type === 'function_call') {
      const original = find((m) => m.type === 'function_call' &&
                                   m.call_id === item.call_id);
      input.push(original || {type: 'function_call', callId: item.call_id,
                              name: item.name, arguments: item.arguments});
    } else if (item.type === 'function_call_output') {
      const original = find((m) => m.type === 'function_call_output' &&
                                   m.call_id === item.call_id);
      const output = contentText(item.output);
      input.push(original ? {...original, output} :
                 {type: 'function_call_result', callId: item.call_id,
                  name: '', status: 'completed', output});
    } else {
      const text = JSON.stringify(item);
      input.push(find((m) => JSON.stringify(m) === text) || item);
    }
  }
  return system.length ? {input, instructions: system.join('\n\n')} : {input};
}

let toolCallCount = 0;

class CtxkitSession {
  /**
   * @param {object} options
   * @param {import('./index.js').Store} options.store
   * @param {string} [options.sessionId] default a random UUID
   * @param {string} [options.key] the items' key (default
   *   `openai-agents/<sessionId>`)
   * @param {string} [options.contextSessionId] the ctxkit session that
   *   renders (default the session id)
   * @param {object} [options.policy] its policy, when created
   */
  constructor(options) {
    const {store, sessionId, key, contextSessionId, policy} = options || {};
    if (!store || typeof store.view !== 'function') {
      throw new TypeError('options.store must be a ctxkit Store');
    }
    this.#store = store;
    this.#sessionId = sessionId === undefined ? randomUUID() : sessionId;
    if (typeof this.#sessionId !== 'string' || this.#sessionId === '') {
      throw new TypeError('options.sessionId must be a non-empty string');
    }
    this.#key = key === undefined ? `openai-agents/${this.#sessionId}` : key;
    this.#contextSessionId = contextSessionId === undefined ?
        this.#sessionId : contextSessionId;
    this.#policy = policy;
    this.#view = store.view();
  }

  #store;
  #sessionId;
  #key;
  #contextSessionId;
  #policy;
  #view;
  #context = null;

  get store() { return this.#store; }
  get sessionId() { return this.#sessionId; }
  /** The key of the items' stream. */
  get key() { return this.#key; }
  get contextSessionId() { return this.#contextSessionId; }

  async getSessionId() { return this.#sessionId; }

  async getItems(limit) {
    const {items} = await this.#read();
    if (limit === undefined || limit === null) return items;
    if (limit <= 0) return [];
    return items.slice(Math.max(items.length - limit, 0));
  }

  async addItems(items) {
    if (!Array.isArray(items)) throw new TypeError('items must be an array');
    if (items.length === 0) return;
    const text = items.map((item) => encodeItem(item) + '\n').join('');
    await this.#view.append(this.#key, text, {producer: 'openai-agents'});
  }

  async popItem() {
    // Read version N, write it back without its last line only while N is
    // the latest (another writer's append makes us read again).
    for (;;) {
      const {items, lines, version} = await this.#read();
      if (items.length === 0) return undefined;
      const rest = lines.slice(0, -1).map((line) => line + '\n').join('');
      try {
        await this.#view.set(this.#key, rest, {type: 'stream',
                                             expectedVersion: version,
                                             producer: 'openai-agents'});
        return items[items.length - 1];
      } catch (e) {
        if (!isCode(e, 'failed_precondition')) throw e;
      }
    }
  }

  async clearSession() {
    try {
      await this.#view.remove(this.#key);
    } catch (e) {
      if (!isCode(e, 'not_found')) throw e;
    }
    this.#context = null;
    try {
      await Session.remove(this.#store, this.#contextSessionId);
    } catch (e) {
      if (!isCode(e, 'not_found') && !isCode(e, 'invalid_argument')) throw e;
    }
  }

  /** The ctxkit Session that renders (opened, or created with the
   * policy). */
  contextSession() {
    if (!this.#context) {
      const id = this.#contextSessionId;
      this.#context = Session.open(this.#store, id).catch((e) => {
        if (!isCode(e, 'not_found')) throw e;
        return Session.create(this.#store, id, this.#policy).catch((e2) => {
          if (isCode(e2, 'already_exists')) return Session.open(this.#store, id);
          throw e2;
        });
      });
      this.#context.catch(() => { this.#context = null; });
    }
    return this.#context;
  }

  /**
   * A callModelInputFilter (Runner.run option or RunConfig) that sends the
   * model ctxkit's render of its input within `budget` tokens.
   * @param {{budget: number, tools?: boolean | object[],
   *          record?: boolean,
   *          onRender?: (r: object, ingest: object) => void}} options
   */
  modelInputFilter(options) {
    const {budget, tools, record, onRender} = options || {};
    if (!Number.isInteger(budget) || budget < 1) {
      throw new TypeError('options.budget must be a positive integer');
    }
    return async ({modelData}) => {
      const session = await this.contextSession();
      const originals = modelData.input;
      const mapped = originals.map(toResponsesItem);
      const log = {input: mapped};
      if (modelData.instructions) log.instructions = modelData.instructions;
      const ingested =
          await session.ingest(log, {format: 'openai-responses'});
      const renderOptions = {budget, format: 'openai-responses'};
      if (tools !== undefined) renderOptions.tools = tools;
      if (record !== undefined) renderOptions.record = record;
      const result = await session.render(renderOptions);
      if (onRender) onRender(result, ingested);
      return fromRendered(result.request.input, originals, mapped);
    };
  }

  /** The ctxkit_* agent tools as the SDK's function tools; each call runs
   * against contextSession() (handles like #12 name its render's outputs). */
  agentTools() {
    const {tool} = require('@openai/agents-core');
    return Session.tools('openai-responses').map((definition) => tool({
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters,
      strict: false,
      execute: async (input, _context, details) => {
        const call = details && details.toolCall;
        const session = await this.contextSession();
        const result = await session.call({
          type: 'function_call',
          call_id: call ? call.callId : `ctxkit_${++toolCallCount}`,
          name: definition.name,
          arguments: call ? call.arguments : JSON.stringify(input ?? {}),
        });
        return result.output;
      },
    }));
  }

  async #read() {
    let meta;
    try {
      meta = await this.#view.stat(this.#key);
    } catch (e) {
      if (isCode(e, 'not_found')) return {items: [], lines: [], version: 0};
      throw e;
    }
    const text = await this.#view.getText(this.#key, {version: meta.version});
    const lines = text.split('\n').filter((line) => line !== '');
    return {items: lines.map((l) => decode(JSON.parse(l))), lines,
            version: meta.version};
  }
}

module.exports = {CtxkitSession, toResponsesItem};
