'use strict';
// ctxkit for Node: Store, View, Session, Notebook and ToolOutputCapture
// over the native addon (ctxkit.node, built from js/src/). Every call that
// reads or writes the store returns a Promise and runs on a worker thread;
// errors are CtxkitError with a `code` per status (docs/typescript.md).

const path = require('node:path');

const native = require(path.join(__dirname, 'ctxkit.node'));

/** The one error class: `code` names the status (not_found, ...). */
class CtxkitError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'CtxkitError';
    this.code = code;
  }
}
native.setErrorClass(CtxkitError);

const kNative = Symbol('ctxkit.native');

class View {
  constructor(handle) {
    this[kNative] = handle;
  }
  set(key, value, options) { return this[kNative].set(key, value, options); }
  setMany(items, options) { return this[kNative].setMany(items, options); }
  append(key, value, options) {
    return this[kNative].append(key, value, options);
  }
  get(target, options) { return this[kNative].get(target, options); }
  getText(target, options) { return this[kNative].getText(target, options); }
  resolve(ref) { return this[kNative].resolve(ref); }
  readRange(ref, options) { return this[kNative].readRange(ref, options); }
  ref(key, options) { return this[kNative].ref(key, options); }
  pin(target, options) { return this[kNative].pin(target, options); }
  stat(target, options) { return this[kNative].stat(target, options); }
  remove(key, options) { return this[kNative].remove(key, options); }
  list(options) { return this[kNative].list(options); }
  versions(target, options) { return this[kNative].versions(target, options); }
  countTokens(target, options) {
    return this[kNative].countTokens(target, options);
  }
  peek(target, options) { return this[kNative].peek(target, options); }
  search(pattern, options) { return this[kNative].search(pattern, options); }
  len(target, options) { return this[kNative].len(target, options); }
  summarize(target, options) {
    return this[kNative].summarize(target, options);
  }
  findRelevant(query, options) {
    return this[kNative].findRelevant(query, options);
  }
}

class Store {
  constructor(handle) {
    if (!(handle instanceof native.NativeStore)) {
      throw new TypeError('use Store.open(options) to open a store');
    }
    this[kNative] = handle;
  }
  static async open(options) {
    return new Store(await native.openStore(options));
  }
  get home() { return this[kNative].home; }
  view(options) { return new View(this[kNative].view(options)); }
  stats() { return this[kNative].stats(); }
  executionLog(options) {
    return native.executionLog(this[kNative], options);
  }
}

function storeHandle(store) {
  if (!(store instanceof Store)) throw new TypeError('store must be a Store');
  return store[kNative];
}

class Session {
  constructor(handle) {
    if (!(handle instanceof native.NativeSession)) {
      throw new TypeError('use Session.create or Session.open');
    }
    this[kNative] = handle;
  }
  static async create(store, id, policy) {
    return new Session(await native.openSession(
        storeHandle(store), id, {create: true, policy}));
  }
  static async open(store, id) {
    return new Session(await native.openSession(storeHandle(store), id));
  }
  static list(store) { return native.listSessions(storeHandle(store)); }
  static remove(store, id) {
    return native.removeSession(storeHandle(store), id);
  }
  /** The agent tools' definitions in a provider format (no I/O). */
  static tools(format) { return native.agentTools(format); }

  get id() { return this[kNative].id; }
  ingest(log, options) { return this[kNative].ingest(log, options); }
  render(options) { return this[kNative].render(options); }
  replay(record) { return this[kNative].replay(record); }
  diff(from, to) { return this[kNative].diff(from, to); }
  expand(compaction) { return this[kNative].expand(compaction); }
  snapshot() { return this[kNative].snapshot(); }
  activate(object, version) {
    return this[kNative].pool('activate', object, version);
  }
  deactivate(object) { return this[kNative].pool('deactivate', object); }
  pin(object, version) { return this[kNative].pool('pin', object, version); }
  unpin(object) { return this[kNative].pool('unpin', object); }
  track(object) { return this[kNative].pool('track', object); }
  requestCompaction(instructions) {
    return this[kNative].requestCompaction(instructions);
  }
  call(toolCall, options) { return this[kNative].call(toolCall, options); }
  async fork(record, newId) {
    return new Session(await this[kNative].fork(record, newId));
  }
}

function viewHandle(view) {
  if (!(view instanceof View)) throw new TypeError('view must be a View');
  return view[kNative];
}

/** Agent context notes under a root, indexed in the view's store. */
class Notebook {
  constructor(handle) {
    if (!(handle instanceof native.NativeNotebook)) {
      throw new TypeError('use Notebook.open(view, options)');
    }
    this[kNative] = handle;
  }
  // Not async: a wrong argument type throws synchronously.
  static open(view, options) {
    return native.openNotebook(viewHandle(view), options)
        .then((handle) => new Notebook(handle));
  }
  get root() { return this[kNative].root; }
  add(note) { return this[kNative].add(note); }
  update(path, options) { return this[kNative].update(path, options); }
  link(path, target, options) {
    return this[kNative].link(path, target, options);
  }
  supersede(oldPath, newPath, options) {
    return this[kNative].supersede(oldPath, newPath, options);
  }
  show(path) { return this[kNative].show(path); }
  search(query) { return this[kNative].search(query); }
  scan(options) { return this[kNative].scan(options); }
  gc(options) { return this[kNative].gc(options); }
}

/** Tool-output capture for the view's session. */
class ToolOutputCapture {
  constructor(handle) {
    if (!(handle instanceof native.NativeToolOutputCapture)) {
      throw new TypeError('use ToolOutputCapture.open(view, options)');
    }
    this[kNative] = handle;
  }
  static open(view, options) {
    return native.openCapture(viewHandle(view), options)
        .then((handle) => new ToolOutputCapture(handle));
  }
  get sessionId() { return this[kNative].sessionId; }
  get root() { return this[kNative].root; }
  save(toolName, args, result, options) {
    return this[kNative].save(toolName, args, result, options);
  }
  load(pointer) { return this[kNative].load(pointer); }
  list(sessionId) { return this[kNative].list(sessionId); }
  clear() { return this[kNative].clear(); }
  select(question, pointers, options) {
    return this[kNative].select(question, pointers, options);
  }
}

// Sub-agents (spawn.h): a manifest is the object of its JSON form
// (docs/spawn.md).

/** Starts a sub-agent that may read the [name, ref] pairs of `context`. */
function spawn(parent, prompt, context, options) {
  return native.spawn(viewHandle(parent), prompt, context, options)
      .then((child) => ({view: new View(child.view), manifest: child.manifest,
                         manifestPath: child.manifestPath}));
}

/** The manifest file at `path`. */
function loadManifest(path) { return native.loadManifest(path); }

/** The child's view, as the manifest says. */
function openChildView(store, manifest) {
  return new View(native.openChildView(storeHandle(store), manifest));
}

/** The value of the manifest's ref called `name` (a Buffer). */
function resolveContextRef(child, manifest, name) {
  return native.resolveContextRef(viewHandle(child), manifest, name);
}

/** Stores the child's result; resolves to its static ref. */
function setResult(child, manifest, value, options) {
  return native.setResult(viewHandle(child), manifest, value, options);
}

/** The parent's side: the child's latest result's static ref. */
function collectResult(parent, manifest) {
  return native.collectResult(viewHandle(parent), manifest);
}

/** True for the name of one of the agent tools (ctxkit_read, ...). */
function isAgentTool(name) {
  return typeof name === 'string' && native.isAgentToolName(name);
}

module.exports = {CtxkitError, Store, View, Session, Notebook,
                  ToolOutputCapture, isAgentTool, spawn, loadManifest,
                  openChildView, resolveContextRef, setResult,
                  collectResult};
