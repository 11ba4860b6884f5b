'use strict';
// ctxkit/ai-sdk: a language model middleware for the Vercel AI SDK
// (wrapLanguageModel) whose transformParams ingests the prompt into a ctxkit
// Session and replaces it with ctxkit's render within a token budget (tool
// outputs behind refs and handles, the agent tools added), and ctxkitTools,
// the ctxkit_* agent tools as AI SDK tools answered by the session
// (docs/typescript.md). Nothing here imports `ai`: the middleware and the
// tools are the plain objects the SDK takes.

const {Session, isAgentTool} = require('./index.js');

// What the AI SDK's jsonSchema() returns: a schema the SDK recognizes by
// this registered symbol, with the JSON Schema as is and no validator.
const kSchema = Symbol.for('vercel.ai.schema');
function jsonSchema(schema) {
  return {[kSchema]: true, _type: undefined, jsonSchema: schema,
          validate: undefined};
}

function partText(part) {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text;
    case 'file':
      return `[file ${part.mediaType}${part.filename ? ` ${part.filename}` : ''}]`;
    default:
      return `[${part.type}]`;
  }
}

function outputText(output) {
  if (!output || typeof output !== 'object') return String(output);
  switch (output.type) {
    case 'text':
      return output.value;
    case 'error-text':
      return `error: ${output.value}`;
    case 'json':
      return JSON.stringify(output.value);
    case 'error-json':
      return `error: ${JSON.stringify(output.value)}`;
    case 'execution-denied':
      return `execution denied${output.reason ? `: ${output.reason}` : ''}`;
    case 'content':
      return output.value.map(partText).join('');
    default:
      return JSON.stringify(output);
  }
}

function toolMessage(part) {
  return {role: 'tool', tool_call_id: part.toolCallId,
          content: outputText(part.output)};
}

/** The AI SDK prompt (LanguageModelV4Prompt) as an OpenAI Chat Completions
 * log (ctxkit's `openai` ingestion format). Files show as a note,
 * reasoning is left out, tool approvals are left out. */
function toChatLog(prompt) {
  const log = [];
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        log.push({role: 'system', content: message.content});
        break;
      case 'user':
        log.push({role: 'user',
                  content: message.content.map(partText).join('')});
        break;
      case 'assistant': {
        const text = message.content.filter((p) => p.type === 'text')
                         .map((p) => p.text).join('');
        const calls = message.content.filter((p) => p.type === 'tool-call');
        const out = {role: 'assistant', content: text};
        if (calls.length) {
          if (text === '') out.content = null;
          out.tool_calls = calls.map((p) => ({
            id: p.toolCallId, type: 'function',
            function: {name: p.toolName,
                       arguments: typeof p.input === 'string' ?
                           p.input : JSON.stringify(p.input ?? {})},
          }));
        }
        log.push(out);
        for (const p of message.content) {
          if (p.type === 'tool-result') log.push(toolMessage(p));
        }
        break;
      }
      case 'tool':
        for (const p of message.content) {
          if (p.type === 'tool-result') log.push(toolMessage(p));
        }
        break;
      default:
        throw new TypeError(`prompt message with role '${message.role}'`);
    }
  }
  return log;
}

function parseArguments(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** ctxkit's rendered messages (Chat Completions) back as an AI SDK prompt:
 * a user message the render shows unchanged is the prompt's own (its
 * files kept), tool calls keep their parts, and each tool output is a text
 * result (whole, an excerpt, or a placeholder naming its ref). */
function fromRendered(messages, prompt) {
  const users = prompt.filter((m) => m.role === 'user');
  let userCursor = 0;
  const callParts = new Map();
  for (const message of prompt) {
    if (message.role !== 'assistant') continue;
    for (const p of message.content) {
      if (p.type === 'tool-call') callParts.set(p.toolCallId, p);
    }
  }
  const out = [];
  for (const m of messages) {
    if (m.role === 'system') {
      out.push({role: 'system', content: m.content});
    } else if (m.role === 'user') {
      let original;
      for (let j = userCursor; j < users.length; j++) {
        if (users[j].content.map(partText).join('') === m.content) {
          original = users[j];
          userCursor = j + 1;
          break;
        }
      }
      out.push(original || {role: 'user',
                            content: [{type: 'text', text: m.content}]});
    } else if (m.role === 'assistant') {
      const content = [];
      if (m.content) content.push({type: 'text', text: m.content});
      for (const call of m.tool_calls || []) {
        if (!callParts.has(call.id)) {
          callParts.set(call.id, {
            type: 'tool-call', toolCallId: call.id,
            toolName: call.function.name,
            input: parseArguments(call.function.arguments)});
        }
        content.push(callParts.get(call.id));
      }
      out.push({role: 'assistant', content});
    } else if (m.role === 'tool') {
      const call = callParts.get(m.tool_call_id);
      const part = {type: 'tool-result', toolCallId: m.tool_call_id,
                    toolName: call ? call.toolName : '',
                    output: {type: 'text', value: m.content}};
      const last = out[out.length - 1];
      if (last && last.role === 'tool') {
        last.content.push(part);
      } else {
        out.push({role: 'tool', content: [part]});
      }
    }
  }
  return out;
}

function checkSession(session) {
  if (!(session instanceof Session)) {
    throw new TypeError('options.session must be a ctxkit Session');
  }
}

/** The agent tools as LanguageModelV4FunctionTool definitions. */
function agentFunctionTools() {
  return Session.tools('openai').map(({function: f}) => ({
    type: 'function', name: f.name, description: f.description,
    inputSchema: f.parameters,
  }));
}

/**
 * A LanguageModelV4Middleware whose transformParams sends the model
 * ctxkit's render of the prompt within `budget` tokens.
 * @param {{session: Session, budget: number, tools?: boolean,
 *          record?: boolean,
 *          onRender?: (r: object, ingest: object) => void}} options
 */
function ctxkitMiddleware(options) {
  const {session, budget, tools, record, onRender} = options || {};
  checkSession(session);
  if (!Number.isInteger(budget) || budget < 1) {
    throw new TypeError('options.budget must be a positive integer');
  }
  return {
    specificationVersion: 'v4',
    transformParams: async ({params}) => {
      const ingested = await session.ingest(toChatLog(params.prompt),
                                            {format: 'openai'});
      const renderOptions = {budget, format: 'openai'};
      if (record !== undefined) renderOptions.record = record;
      const own = (params.tools || []).filter(
          (t) => t.type === 'function' && !isAgentTool(t.name));
      if (tools) {
        // The agent tools, then the caller's own, count in the budget.
        renderOptions.tools = own.length === 0 ? true : own.map((t) => ({
          type: 'function',
          function: {name: t.name, description: t.description ?? '',
                     parameters: t.inputSchema},
        }));
      }
      const result = await session.render(renderOptions);
      if (onRender) onRender(result, ingested);
      const next = {...params,
                    prompt: fromRendered(result.request.messages, params.prompt)};
      if (tools) {
        const present = new Set((params.tools || []).map((t) => t.name));
        next.tools = [...(params.tools || []),
                      ...agentFunctionTools().filter((t) => !present.has(t.name))];
      }
      return next;
    },
  };
}

let toolCallCount = 0;

/** The ctxkit_* agent tools as AI SDK tools (a ToolSet to spread into
 * generateText's `tools`); each runs session.call and returns its text. */
function ctxkitTools(session) {
  checkSession(session);
  const set = {};
  for (const {function: f} of Session.tools('openai')) {
    set[f.name] = {
      description: f.description,
      inputSchema: jsonSchema(f.parameters),
      execute: async (input, execution) => {
        const result = await session.call({
          id: (execution && execution.toolCallId) || `ctxkit_${++toolCallCount}`,
          type: 'function',
          function: {name: f.name, arguments: JSON.stringify(input ?? {})},
        });
        return result.content;
      },
    };
  }
  return set;
}

module.exports = {ctxkitMiddleware, ctxkitTools, toChatLog};
